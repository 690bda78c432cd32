/**
 * Publisher signatures: `clat-plugin.publisher.json` plus a Minisign `clat-plugin.minisig`
 * (prehashed Ed25519 only; legacy signatures are refused) over the `clat-plugin-signature-v1`
 * message, which binds publisher, key, id, version and the tree digest of everything except the
 * signature file itself.
 * @module
 */
import { createHash, createPublicKey, verify } from 'node:crypto';
import * as z from 'zod';
import { PackagingError } from './errors.js';
import { type TreeFile, treeDigest } from './tree.js';

export const PUBLISHER_FILE = 'clat-plugin.publisher.json';
export const SIGNATURE_FILE = 'clat-plugin.minisig';
/** Bounds of the two signature files. */
export const SIGNATURE_LIMITS = { publisherFileBytes: 16 * 1024, signatureFileBytes: 16 * 1024 };

export const PublisherFileSchema = z
  .object({
    schemaVersion: z.literal(1),
    publisher: z
      .string()
      .regex(
        /^[a-z0-9._-]{1,128}$/,
        'must be 1-128 characters of lowercase a-z, 0-9, ".", "_", "-"',
      ),
    publicKey: z.string().min(1).max(1024),
  })
  .strict();

export interface Publisher {
  publisher: string;
  /** The Minisign public key (base64 line), trimmed. */
  publicKey: string;
}

/** The exact bytes a publisher signs. */
export function signingMessage(fields: {
  publisher: string;
  publicKey: string;
  id: string;
  version: string;
  contentSha256: string;
}): string {
  return (
    'clat-plugin-signature-v1\n' +
    `publisher:${fields.publisher}\n` +
    `publicKey:${fields.publicKey.trim()}\n` +
    `id:${fields.id}\n` +
    `version:${fields.version}\n` +
    `contentSha256:${fields.contentSha256}\n`
  );
}

/** Tree digest of a package without its root signature file (what the signature covers). */
export function contentDigest(files: readonly TreeFile[]): string {
  return treeDigest(files.filter((file) => file.path !== SIGNATURE_FILE));
}

function invalid(file: string, message: string): PackagingError {
  return new PackagingError('SIGNATURE_INVALID', `${file}: ${message}`, { file });
}

function decodeBase64(file: string, text: string, bytes: number, what: string): Buffer {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(trimmed)) throw invalid(file, `${what} is not base64`);
  const decoded = Buffer.from(trimmed, 'base64');
  if (decoded.length !== bytes)
    throw invalid(file, `${what} has ${decoded.length} bytes, not ${bytes}`);
  return decoded;
}

/** Parses a Minisign public key: the base64 line alone, or a `.pub` file with its comment line. */
export function parseMinisignPublicKey(file: string, text: string) {
  const lines = text.trim().split(/\r?\n/);
  const line =
    lines.length === 2 && lines[0]?.startsWith('untrusted comment:') ? lines[1] : lines[0];
  if (line === undefined || lines.length > 2)
    throw invalid(file, 'publicKey is not a Minisign key');
  const raw = decodeBase64(file, line, 42, 'publicKey');
  if (raw.subarray(0, 2).toString('latin1') !== 'Ed') {
    throw invalid(file, 'publicKey is not an Ed25519 Minisign key');
  }
  const key = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: raw.subarray(10).toString('base64url') },
    format: 'jwk',
  });
  return { keyId: raw.subarray(2, 10), key };
}

/**
 * Verifies a Minisign signature file over `message`. Only prehashed (`ED`, BLAKE2b-512)
 * signatures are accepted. Returns the trusted comment, which the global signature covers.
 */
export function verifyMinisign(
  message: Buffer,
  signatureText: string,
  publicKeyText: string,
  file = SIGNATURE_FILE,
): { trustedComment: string } {
  const { keyId, key } = parseMinisignPublicKey(PUBLISHER_FILE, publicKeyText);
  const lines = signatureText.split(/\r?\n/);
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (
    lines.length !== 4 ||
    !lines[0]?.startsWith('untrusted comment:') ||
    !lines[2]?.startsWith('trusted comment: ')
  ) {
    throw invalid(
      file,
      'is not a Minisign signature (4 lines with untrusted and trusted comments)',
    );
  }
  const sig = decodeBase64(file, lines[1] as string, 74, 'signature');
  const algorithm = sig.subarray(0, 2).toString('latin1');
  if (algorithm === 'Ed') {
    throw invalid(
      file,
      'is a legacy (non-prehashed) Minisign signature; re-sign with a current minisign',
    );
  }
  if (algorithm !== 'ED')
    throw invalid(file, `uses unknown signature algorithm ${JSON.stringify(algorithm)}`);
  if (!sig.subarray(2, 10).equals(keyId)) {
    throw invalid(file, 'was made with a different key than the publisher publicKey');
  }
  const signature = sig.subarray(10);
  const prehashed = createHash('blake2b512').update(message).digest();
  if (!verify(null, prehashed, key, signature)) {
    throw invalid(file, 'signature does not match the package content');
  }
  const trustedComment = (lines[2] as string).slice('trusted comment: '.length);
  const globalSignature = decodeBase64(file, lines[3] as string, 64, 'global signature');
  if (
    !verify(
      null,
      Buffer.concat([signature, Buffer.from(trustedComment, 'utf8')]),
      key,
      globalSignature,
    )
  ) {
    throw invalid(file, 'trusted comment signature does not verify');
  }
  return { trustedComment };
}
