/**
 * Read-only package inspection: tree walk, manifest v1, entry digest and exec bit, config checks
 * and capability expansion.
 * @module
 */
import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { join } from 'node:path';
import {
  capabilityLabels,
  describeJsonSyntaxError,
  type JsonValue,
  MANIFEST_FILE,
  MANIFEST_LIMITS,
  type PluginCapabilities,
  type PluginManifest,
  parseManifest,
} from '@clat/kernel';
import { compileConfigSchema, configSchemaProblem, requiredKeys } from './config-schema.js';
import { configFlags } from './config-values.js';
import { PackagingError } from './errors.js';
import { PACKAGE_LIMITS } from './limits.js';
import {
  contentDigest,
  PUBLISHER_FILE,
  type Publisher,
  PublisherFileSchema,
  SIGNATURE_FILE,
  SIGNATURE_LIMITS,
  signingMessage,
  verifyMinisign,
} from './signature.js';
import { type PackageTree, readPackageTree, type TreeFile } from './tree.js';

/** The start of a script a program loader runs by its interpreter line. */
const SHEBANG = Buffer.from('#!');

/** Whether an entry is a JavaScript file by its name (`.js`, `.mjs`, `.cjs`). */
function isJavaScript(path: string): boolean {
  return /\.[mc]?js$/i.test(path);
}

const WASM_MAGIC = Buffer.from([0x00, 0x61, 0x73, 0x6d]);
/** Version and layer of the component binary format (core modules carry 01 00 00 00). */
const COMPONENT_LAYER = Buffer.from([0x0d, 0x00, 0x01, 0x00]);

export type PackageTrust = 'local-unverified' | 'publisher-verified';

export interface InspectedPackage {
  dir: string;
  manifest: PluginManifest;
  tree: PackageTree;
  /** The manifest's runtime entry as found in the tree. */
  entry: TreeFile;
  /** Capability labels the package asks for (`tools`, `hostTools.<id>`, ...). */
  capabilities: string[];
  trust: PackageTrust;
  /** Set when a publisher signature verified (trust `publisher-verified`). */
  publisher?: Publisher;
}

/** Reads a bounded regular file without following symlinks. */
export async function readBoundedFile(
  path: string,
  maxBytes: number,
  label: string = path,
): Promise<Buffer> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ELOOP' ? 'is a symlink' : code === 'ENOENT' ? 'does not exist' : code;
    throw new PackagingError('MANIFEST_INVALID', `${label} ${why}`, { file: label, cause: error });
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) {
      throw new PackagingError('MANIFEST_INVALID', `${label} is not a regular file`, {
        file: label,
      });
    }
    if (stat.size > maxBytes) {
      throw new PackagingError('MANIFEST_INVALID', `${label} exceeds ${maxBytes} bytes`, {
        file: label,
      });
    }
    const buffer = Buffer.alloc(stat.size);
    let read = 0;
    while (read < stat.size) {
      const { bytesRead } = await handle.read(buffer, read, stat.size - read, read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    if (read !== stat.size) {
      throw new PackagingError('TREE_CHANGED', `${label} changed while being read`, {
        file: label,
      });
    }
    return buffer;
  } finally {
    await handle.close();
  }
}

async function readPrefix(path: string, length: number): Promise<Buffer> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

export interface InspectOptions {
  /**
   * An already verified tree of `dir` to use instead of walking it again (the store passes the
   * shipped files of an artifact, without files a server added later).
   */
  tree?: PackageTree;
}

/** Inspects a package directory without writing anything. */
export async function inspectPackage(
  dir: string,
  options: InspectOptions = {},
): Promise<InspectedPackage> {
  const tree = options.tree ?? (await readPackageTree(dir));
  const manifestFile = tree.files.find((file) => file.path === MANIFEST_FILE);
  if (manifestFile === undefined) {
    throw new PackagingError('MANIFEST_INVALID', `${join(dir, MANIFEST_FILE)} does not exist`, {
      file: MANIFEST_FILE,
    });
  }
  const text = (
    await readBoundedFile(join(dir, MANIFEST_FILE), MANIFEST_LIMITS.manifestBytes, MANIFEST_FILE)
  ).toString('utf8');
  const parsed = parseManifest(MANIFEST_FILE, text);
  if (!parsed.ok) {
    const detail = parsed.issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
    throw new PackagingError('MANIFEST_INVALID', `${MANIFEST_FILE}: ${detail}`, {
      file: MANIFEST_FILE,
      data: { issues: parsed.issues },
    });
  }
  const manifest = parsed.manifest;
  const entryPath = manifest.runtime.entry;
  const entry = tree.files.find((file) => file.path === entryPath);
  if (entry === undefined) {
    // The walk admits regular files only, so a missing entry is absent, a directory or a symlink.
    const stat = await lstat(join(dir, entryPath)).catch(() => undefined);
    const why = stat?.isDirectory() ? 'is a directory' : 'does not exist in the package';
    throw new PackagingError(
      'ENTRY_INVALID',
      `${MANIFEST_FILE}: runtime.entry ${JSON.stringify(entryPath)} ${why}`,
      { file: entryPath },
    );
  }
  if (entry.sha256 !== manifest.runtime.sha256) {
    throw new PackagingError(
      'ENTRY_INVALID',
      `${MANIFEST_FILE}: runtime.sha256 does not match ${entryPath} (manifest ${manifest.runtime.sha256}, file ${entry.sha256})`,
      { file: entryPath },
    );
  }
  if (
    manifest.runtime.kind === 'mcp-stdio' &&
    manifest.runtime.interpreter === undefined &&
    process.platform !== 'win32' &&
    !entry.executable
  ) {
    throw new PackagingError(
      'ENTRY_INVALID',
      `${entryPath} must be executable (chmod +x) for an mcp-stdio package${isJavaScript(entryPath) ? `, or name its interpreter: "runtime": {"interpreter": "node", …} in ${MANIFEST_FILE}` : ''}`,
      { file: entryPath },
    );
  }
  if (
    manifest.runtime.kind === 'mcp-stdio' &&
    manifest.runtime.interpreter === undefined &&
    isJavaScript(entryPath) &&
    !(await readPrefix(join(dir, entryPath), 2)).equals(SHEBANG)
  ) {
    // Run as a program, a JavaScript file without "#!" goes to /bin/sh ("import: not found"):
    // every check passed and the server could never start.
    throw new PackagingError(
      'ENTRY_INVALID',
      `${entryPath} is JavaScript without a "#!" line, so it cannot run as a program: set "runtime": {"interpreter": "node", …} in ${MANIFEST_FILE} (CLAT runs it with its own Node.js), or start the file with "#!/usr/bin/env node"`,
      { file: entryPath },
    );
  }
  if (manifest.runtime.kind === 'wasm-component') {
    const header = await readPrefix(join(dir, entryPath), 8);
    if (!header.subarray(0, 4).equals(WASM_MAGIC)) {
      throw new PackagingError('ENTRY_INVALID', `${entryPath} is not a WebAssembly binary`, {
        file: entryPath,
      });
    }
    if (!header.subarray(4, 8).equals(COMPONENT_LAYER)) {
      throw new PackagingError(
        'ENTRY_INVALID',
        `${entryPath} is a core WebAssembly module, not a component (build it with jco componentize)`,
        { file: entryPath },
      );
    }
  }
  // A broken configSchema is the package's fault; say so at inspect, not at the first install.
  if (manifest.configSchema !== undefined) {
    compileConfigSchema(manifest.configSchema, `${MANIFEST_FILE} configSchema`);
  }
  const publisher = await verifyPublisher(dir, tree, manifest);
  return {
    dir,
    manifest,
    tree,
    entry,
    capabilities: capabilityLabels(manifest.capabilities),
    trust: publisher === undefined ? 'local-unverified' : 'publisher-verified',
    ...(publisher === undefined ? {} : { publisher }),
  };
}

async function readSignatureFile(dir: string, name: string, maxBytes: number): Promise<string> {
  try {
    return (await readBoundedFile(join(dir, name), maxBytes, name)).toString('utf8');
  } catch (error) {
    throw new PackagingError('SIGNATURE_INVALID', (error as Error).message, {
      file: name,
      cause: error,
    });
  }
}

/** Checks the optional publisher signature; both files or neither. */
async function verifyPublisher(
  dir: string,
  tree: PackageTree,
  manifest: PluginManifest,
): Promise<Publisher | undefined> {
  const hasPublisher = tree.files.some((file) => file.path === PUBLISHER_FILE);
  const hasSignature = tree.files.some((file) => file.path === SIGNATURE_FILE);
  if (!hasPublisher && !hasSignature) return undefined;
  if (hasPublisher !== hasSignature) {
    const missing = hasPublisher ? SIGNATURE_FILE : PUBLISHER_FILE;
    throw new PackagingError(
      'SIGNATURE_INVALID',
      `${missing} is missing: ${PUBLISHER_FILE} and ${SIGNATURE_FILE} come together or not at all`,
      { file: missing },
    );
  }
  const publisherText = await readSignatureFile(
    dir,
    PUBLISHER_FILE,
    SIGNATURE_LIMITS.publisherFileBytes,
  );
  let raw: unknown;
  try {
    raw = JSON.parse(publisherText);
  } catch {
    throw new PackagingError(
      'SIGNATURE_INVALID',
      `${PUBLISHER_FILE} is not valid JSON: ${describeJsonSyntaxError(publisherText)}`,
      { file: PUBLISHER_FILE },
    );
  }
  const parsed = PublisherFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || '(root)';
    const message =
      issue?.code === 'unrecognized_keys'
        ? `unknown field(s) ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`
        : (issue?.message ?? 'invalid');
    throw new PackagingError('SIGNATURE_INVALID', `${PUBLISHER_FILE}: ${field}: ${message}`, {
      file: PUBLISHER_FILE,
    });
  }
  const publisher: Publisher = {
    publisher: parsed.data.publisher,
    publicKey: parsed.data.publicKey.trim(),
  };
  const signatureText = await readSignatureFile(
    dir,
    SIGNATURE_FILE,
    SIGNATURE_LIMITS.signatureFileBytes,
  );
  const message = signingMessage({
    ...publisher,
    id: manifest.id,
    version: manifest.version,
    contentSha256: contentDigest(tree.files),
  });
  verifyMinisign(Buffer.from(message, 'utf8'), signatureText, publisher.publicKey);
  return publisher;
}

/** Labels in `next` that `previous` did not grant (all of `next` on a fresh install). */
export function capabilityExpansion(
  previous: PluginCapabilities | undefined,
  next: PluginCapabilities,
): string[] {
  const granted = new Set(previous === undefined ? [] : capabilityLabels(previous));
  return capabilityLabels(next).filter((label) => !granted.has(label));
}

/**
 * Checks a plugin configuration for a manifest: at most 64 KiB of compact JSON, valid against the
 * manifest's configSchema (JSON Schema 2020-12, own properties only). An absent config passes
 * unless the schema requires top-level fields.
 */
export function validateConfig(manifest: PluginManifest, config: JsonValue | undefined): void {
  if (config !== undefined) {
    const bytes = Buffer.byteLength(JSON.stringify(config));
    if (bytes > PACKAGE_LIMITS.configBytes) {
      throw new PackagingError(
        'CONFIG_INVALID',
        `config is ${bytes} bytes, over the ${PACKAGE_LIMITS.configBytes}-byte limit`,
      );
    }
  }
  const schema = manifest.configSchema;
  if (schema === undefined) return;
  if (config === undefined) {
    const required = requiredKeys(schema);
    if (required.length === 0) return;
    throw new PackagingError(
      'CONFIG_INVALID',
      `${manifest.id} needs a config with ${required.map((k) => JSON.stringify(k)).join(', ')}: give ${configFlags(required)}, or the whole config with --config-json or --config-file`,
    );
  }
  const problem = configSchemaProblem(schema, config, `${MANIFEST_FILE} configSchema`);
  if (problem !== undefined) {
    throw new PackagingError('CONFIG_INVALID', `config for ${manifest.id}: ${problem}`);
  }
}

/** Parses `--config-json` text. */
export function parseConfigJson(text: string, label = '--config-json'): JsonValue {
  if (Buffer.byteLength(text) > PACKAGE_LIMITS.configBytes) {
    throw new PackagingError(
      'CONFIG_INVALID',
      `${label} exceeds ${PACKAGE_LIMITS.configBytes} bytes`,
    );
  }
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    throw new PackagingError(
      'CONFIG_INVALID',
      `${label} is not valid JSON: ${describeJsonSyntaxError(text)}`,
      { file: label },
    );
  }
}

/** Reads `--config-file`: bounded, regular file, no symlink. */
export async function readConfigFile(path: string): Promise<JsonValue> {
  let buffer: Buffer;
  try {
    buffer = await readBoundedFile(path, PACKAGE_LIMITS.configFileBytes, path);
  } catch (error) {
    if (error instanceof PackagingError) {
      throw new PackagingError('CONFIG_INVALID', error.message, { file: path, cause: error });
    }
    throw error;
  }
  return parseConfigJson(buffer.toString('utf8'), path);
}
