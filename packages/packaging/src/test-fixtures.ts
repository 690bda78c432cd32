/** Builds small package directories for tests. Not part of the published API. */
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { PluginManifestInput } from '@clat/kernel';
import { contentDigest, signingMessage } from './signature.js';
import { readPackageTree } from './tree.js';

export interface FixtureOptions {
  id?: string;
  version?: string;
  capabilities?: PluginManifestInput['capabilities'];
  configSchema?: Record<string, unknown>;
  entry?: string;
  entryText?: string;
  extraFiles?: Record<string, string>;
  manifest?: Partial<PluginManifestInput>;
  executable?: boolean;
  args?: string[];
  env?: Record<string, string>;
  interpreter?: 'node';
}

/** Writes a valid mcp-stdio package (executable node entry + manifest with its digest). */
export async function writeFixturePackage(dir: string, options: FixtureOptions = {}) {
  const entry = options.entry ?? 'bin/server.mjs';
  const version = options.version ?? '1.0.0';
  const entryText =
    options.entryText ?? `#!/usr/bin/env node\nprocess.stdout.write('fixture ${version}\\n');\n`;
  const entryPath = join(dir, ...entry.split('/'));
  await mkdir(dirname(entryPath), { recursive: true });
  await writeFile(entryPath, entryText);
  await chmod(entryPath, options.executable === false ? 0o644 : 0o755);
  for (const [path, text] of Object.entries(options.extraFiles ?? {})) {
    const target = join(dir, ...path.split('/'));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, text);
  }
  const manifest: PluginManifestInput = {
    manifestVersion: 1,
    id: options.id ?? 'fixture',
    name: 'Fixture',
    version,
    runtime: {
      kind: 'mcp-stdio',
      entry,
      sha256: createHash('sha256').update(entryText).digest('hex'),
      ...(options.args === undefined ? {} : { args: options.args }),
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(options.interpreter === undefined ? {} : { interpreter: options.interpreter }),
    },
    capabilities: options.capabilities ?? { tools: true },
    ...(options.configSchema === undefined ? {} : { configSchema: options.configSchema }),
    ...options.manifest,
  };
  await writeFile(join(dir, 'clat-plugin.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return { dir, manifest };
}

export interface MinisignKeys {
  publicKey: string;
  keyId: Buffer;
  privateKey: KeyObject;
}

/** A fresh Ed25519 key in Minisign's public key format (`Ed` ‖ key id ‖ key, base64). */
export function minisignKeys(): MinisignKeys {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url');
  const keyId = randomBytes(8);
  return {
    publicKey: Buffer.concat([Buffer.from('Ed'), keyId, raw]).toString('base64'),
    keyId,
    privateKey,
  };
}

/** Signs like `minisign -S` (prehashed), or like `minisign -S -l` when `legacy`. */
export function minisignSign(
  message: string,
  keys: MinisignKeys,
  trustedComment: string,
  legacy = false,
): string {
  const data = legacy ? Buffer.from(message) : createHash('blake2b512').update(message).digest();
  const signature = sign(null, data, keys.privateKey);
  const global = sign(
    null,
    Buffer.concat([signature, Buffer.from(trustedComment)]),
    keys.privateKey,
  );
  const head = Buffer.concat([Buffer.from(legacy ? 'Ed' : 'ED'), keys.keyId, signature]);
  return `untrusted comment: signature from test key\n${head.toString('base64')}\ntrusted comment: ${trustedComment}\n${global.toString('base64')}\n`;
}

/** Adds clat-plugin.publisher.json and a valid clat-plugin.minisig to a fixture package. */
export async function signFixturePackage(
  dir: string,
  keys: MinisignKeys,
  publisher = 'acme',
  options: { legacy?: boolean } = {},
): Promise<void> {
  await writeFile(
    join(dir, 'clat-plugin.publisher.json'),
    JSON.stringify({ schemaVersion: 1, publisher, publicKey: keys.publicKey }),
  );
  await rm(join(dir, 'clat-plugin.minisig'), { force: true });
  const manifest = JSON.parse(await readFile(join(dir, 'clat-plugin.json'), 'utf8'));
  const message = signingMessage({
    publisher,
    publicKey: keys.publicKey,
    id: manifest.id,
    version: manifest.version,
    contentSha256: contentDigest((await readPackageTree(dir)).files),
  });
  await writeFile(
    join(dir, 'clat-plugin.minisig'),
    minisignSign(message, keys, `CLAT plugin ${manifest.id} ${manifest.version}`, options.legacy),
  );
}
