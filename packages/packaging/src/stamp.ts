/**
 * Stamping: the entry digest of a package directory is computed from the entry's bytes and
 * written into its manifest, so authors never copy a sha256 by hand after a build.
 * @module
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  describeJsonSyntaxError,
  MANIFEST_FILE,
  MANIFEST_LIMITS,
  parseManifest,
} from '@clat/kernel';
import { writeFileAtomic } from '@clat/node-files';
import { PackagingError } from './errors.js';
import { SIGNATURE_FILE } from './signature.js';
import { hashRegularFile } from './tree.js';

export interface StampResult {
  manifestPath: string;
  entry: string;
  sha256: string;
  /** False when the manifest already carried this digest (nothing was written). */
  changed: boolean;
}

/**
 * Hashes `runtime.entry` of `<dir>/clat-plugin.json` and writes the digest into
 * `runtime.sha256` (atomically; the rest of the manifest is kept). The result must be a valid
 * manifest v1. A signed package is never rewritten: its signature would no longer verify.
 */
export async function stampEntryDigest(dir: string): Promise<StampResult> {
  const root = resolve(dir);
  const manifestPath = join(root, MANIFEST_FILE);
  const invalid = (message: string, data?: Record<string, unknown>) =>
    new PackagingError('MANIFEST_INVALID', `${manifestPath}: ${message}`, {
      file: MANIFEST_FILE,
      ...(data === undefined ? {} : { data }),
    });
  let text: string;
  try {
    text = await readFile(manifestPath, 'utf8');
  } catch (error) {
    throw invalid(`cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (Buffer.byteLength(text) > MANIFEST_LIMITS.manifestBytes) {
    throw invalid(`exceeds ${MANIFEST_LIMITS.manifestBytes} bytes`);
  }
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch {
    throw invalid(`is not valid JSON (${describeJsonSyntaxError(text)})`);
  }
  const runtime = (manifest as { runtime?: unknown } | null)?.runtime;
  const entry = (runtime as { entry?: unknown } | null | undefined)?.entry;
  if (typeof runtime !== 'object' || runtime === null || typeof entry !== 'string') {
    throw invalid('runtime.entry must name the entry file to hash');
  }
  const record = runtime as Record<string, unknown>;
  // The manifest schema refuses an entry outside the package, so check it before hashing.
  const probe = parseManifest(MANIFEST_FILE, {
    ...(manifest as object),
    runtime: { ...record, sha256: '0'.repeat(64) },
  });
  if (!probe.ok) {
    // The issues go along, as inspect's do: the CLI names the field a misspelt one meant.
    throw invalid(probe.issues.map((issue) => `${issue.path}: ${issue.message}`).join('; '), {
      issues: probe.issues,
    });
  }
  const { sha256 } = await hashRegularFile(join(root, entry), entry).catch(
    async (error: unknown) => {
      const code = (error as { cause?: NodeJS.ErrnoException }).cause?.code;
      if (code === 'ENOENT') throw await missingEntry(manifestPath, root, entry);
      throw error;
    },
  );
  const current = typeof record.sha256 === 'string' ? record.sha256.toLowerCase() : undefined;
  if (current === sha256 || current === `sha256:${sha256}`) {
    return { manifestPath, entry, sha256, changed: false };
  }
  const signed = await readFile(join(root, SIGNATURE_FILE)).then(
    () => true,
    () => false,
  );
  if (signed) {
    throw new PackagingError(
      'SIGNATURE_INVALID',
      `${manifestPath}: runtime.sha256 is stale but the package is signed; stamp it before signing, then sign again`,
      { file: MANIFEST_FILE },
    );
  }
  record.sha256 = sha256;
  // Through an unpredictable sibling, created exclusively: nothing planted there is written
  // through. The mode any file the author's tools write gets (0666 less the umask); not synced,
  // as before: a manifest in the author's tree, stamped again after the next build.
  await writeFileAtomic(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`, {
    mode: 0o666,
    sync: false,
  });
  return { manifestPath, entry, sha256, changed: true };
}

/** Files a package's entry could be: programs and components at its top level. */
const ENTRY_LIKE = /\.(?:[mc]?js|wasm)$/i;

/**
 * An entry that is not there: either not built yet or misnamed, so the error names the files at
 * the package's top level that could be the one meant (`index.mjs` written for `server.mjs`).
 */
async function missingEntry(manifestPath: string, root: string, entry: string): Promise<Error> {
  const present = (await readdir(root, { withFileTypes: true }).catch(() => []))
    .filter((item) => item.isFile() && ENTRY_LIKE.test(item.name))
    .map((item) => item.name)
    .sort()
    .slice(0, 5);
  const there =
    present.length === 0
      ? ''
      : ` (the package has ${present.map((name) => JSON.stringify(name)).join(', ')})`;
  return new PackagingError(
    'ENTRY_INVALID',
    `${manifestPath}: runtime.entry ${JSON.stringify(entry)} does not exist${there}; build the plugin first${present.length === 0 ? '' : ', or correct the name'}`,
    { file: entry },
  );
}
