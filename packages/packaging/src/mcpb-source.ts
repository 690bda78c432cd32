/**
 * MCP Bundles (`.mcpb` zip files and unpacked directories with an MCPB `manifest.json`): the
 * signature block is cut off, the zip is unpacked strictly (no absolute or `..` paths, no
 * symlinks, no duplicates, bounded), the MCPB manifest is mapped to a manifest v1 (`node` and
 * `binary` servers, `mcp_config` with `${__dirname}` and `${user_config.*}`, `user_config`,
 * `compatibility`) and written next to it, so the store installs it like any package.
 * @module
 */

import { createHash } from 'node:crypto';
import { cp, lstat, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import {
  describeJsonSyntaxError,
  MANIFEST_FILE,
  MANIFEST_LIMITS,
  PLUGIN_ID_PATTERN,
  type PluginManifestInput,
  type PluginUserConfigField,
  relativePathProblem,
  USER_CONFIG_KEY_PATTERN,
} from '@clat/kernel';
import { unzipSync } from 'fflate';
import semver from 'semver';
import { PackagingError } from './errors.js';
import { readBoundedFile } from './inspect.js';
import { PACKAGE_LIMITS } from './limits.js';

export const MCPB_MANIFEST = 'manifest.json';
const MCPB_VERSIONS = ['0.1', '0.2', '0.3', '0.4'];
const SIGNATURE_HEADER = Buffer.from('MCPB_SIG_V1');
const SIGNATURE_FOOTER = Buffer.from('MCPB_SIG_END');
const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
/** A bundle file: the package tree bound plus room for zip overhead. */
const MAX_BUNDLE_BYTES = PACKAGE_LIMITS.treeBytes + 64 * 1024 * 1024;

function invalid(where: string, message: string): PackagingError {
  return new PackagingError('MCPB_INVALID', `${where}: ${message}`, { file: where });
}

/** True for a `.mcpb`/`.dxt` file or a directory with an MCPB manifest and no clat manifest. */
export async function isMcpbSource(path: string): Promise<boolean> {
  const stat = await lstat(path).catch(() => undefined);
  if (stat === undefined) return false;
  if (stat.isFile()) return /\.(mcpb|dxt)$/i.test(path);
  if (!stat.isDirectory()) return false;
  if (await lstat(join(path, MANIFEST_FILE)).catch(() => undefined)) return false;
  const text = await readFile(join(path, MCPB_MANIFEST), 'utf8').catch(() => undefined);
  if (text === undefined) return false;
  try {
    const value = JSON.parse(text) as Record<string, unknown>;
    return 'manifest_version' in value || 'dxt_version' in value;
  } catch {
    return false;
  }
}

/** Cuts a trailing `MCPB_SIG_V1` ‖ u32le length ‖ PKCS#7 ‖ `MCPB_SIG_END` block off a bundle. */
function stripSignature(bytes: Buffer): { zip: Buffer; signed: boolean } {
  if (!bytes.subarray(bytes.length - SIGNATURE_FOOTER.length).equals(SIGNATURE_FOOTER)) {
    return { zip: bytes, signed: false };
  }
  const at = bytes.lastIndexOf(SIGNATURE_HEADER);
  return at === -1 ? { zip: bytes, signed: false } : { zip: bytes.subarray(0, at), signed: true };
}

interface CentralEntry {
  name: string;
  mode: number;
  isDirectory: boolean;
}

/** Reads the central directory for names and Unix modes (fflate does not expose them). */
function centralDirectory(file: string, zip: Buffer): CentralEntry[] {
  const minEocd = 22;
  let eocd = -1;
  for (let i = zip.length - minEocd; i >= Math.max(0, zip.length - minEocd - 0xffff); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd === -1) throw invalid(file, 'is not a zip file (no end of central directory)');
  const count = zip.readUInt16LE(eocd + 10);
  let offset = zip.readUInt32LE(eocd + 16);
  const entries: CentralEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (offset + 46 > zip.length || zip.readUInt32LE(offset) !== 0x02014b50) {
      throw invalid(file, 'has a damaged central directory');
    }
    const madeBy = zip.readUInt16LE(offset + 4) >> 8;
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    const attributes = zip.readUInt32LE(offset + 38);
    const name = zip.toString('utf8', offset + 46, offset + 46 + nameLength);
    // Unix hosts (3) keep st_mode in the high 16 bits.
    const mode = madeBy === 3 ? attributes >>> 16 : 0;
    entries.push({ name, mode, isDirectory: name.endsWith('/') });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** Unpacks a bundle zip into `dest` strictly; restores exec bits. */
async function unpackBundle(file: string, dest: string): Promise<{ signed: boolean }> {
  const bytes = await readBoundedFile(file, MAX_BUNDLE_BYTES, file).catch((error: Error) => {
    throw invalid(file, error.message.replace(`${file} `, ''));
  });
  const { zip, signed } = stripSignature(bytes);
  if (!zip.subarray(0, 4).equals(ZIP_MAGIC)) throw invalid(file, 'is not a zip file');
  const central = centralDirectory(file, zip);
  const seen = new Set<string>();
  const modes = new Map<string, number>();
  for (const entry of central) {
    const path = entry.isDirectory ? entry.name.slice(0, -1) : entry.name;
    const problem = relativePathProblem(path);
    if (problem !== undefined)
      throw invalid(file, `entry ${JSON.stringify(entry.name)} ${problem}`);
    if ((entry.mode & 0o170000) === 0o120000) {
      throw invalid(file, `entry ${JSON.stringify(entry.name)} is a symlink`);
    }
    if (seen.has(path)) throw invalid(file, `entry ${JSON.stringify(path)} appears twice`);
    seen.add(path);
    if (!entry.isDirectory) modes.set(path, entry.mode & 0o777);
  }
  if (modes.size > PACKAGE_LIMITS.treeFiles) {
    throw invalid(file, `has more than ${PACKAGE_LIMITS.treeFiles} files`);
  }
  let declared = 0;
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(zip, {
      filter(entry) {
        if (entry.originalSize > PACKAGE_LIMITS.fileBytes) {
          throw invalid(
            file,
            `${entry.name} is over the ${PACKAGE_LIMITS.fileBytes}-byte file limit`,
          );
        }
        declared += entry.originalSize;
        if (declared > PACKAGE_LIMITS.treeBytes) {
          throw invalid(file, `unpacks to more than ${PACKAGE_LIMITS.treeBytes} bytes`);
        }
        return !entry.name.endsWith('/');
      },
    });
  } catch (error) {
    if (error instanceof PackagingError) throw error;
    throw invalid(file, `cannot be unpacked (${(error as Error).message})`);
  }
  await mkdir(dest, { mode: 0o700 });
  for (const [name, body] of Object.entries(files)) {
    const target = join(dest, ...name.split('/'));
    await mkdir(dirname(target), { recursive: true, mode: 0o700 });
    const executable = ((modes.get(name) ?? 0) & 0o111) !== 0;
    await writeFile(target, body, { flag: 'wx', mode: executable ? 0o700 : 0o600 });
  }
  return { signed };
}

type McpConfig = { command?: unknown; args?: unknown; env?: unknown };

/** What an MCPB bundle declares, for `clat plugin inspect`. */
export interface McpbInfo {
  manifestVersion: string;
  serverType: string;
  tools: { name: string; description?: string }[];
  prompts: { name: string; description?: string }[];
  toolsGenerated: boolean;
  userConfig: Record<string, PluginUserConfigField>;
  compatibility?: unknown;
  signed: boolean;
}

export interface StagedMcpbBundle {
  /** A package directory (the bundle plus a generated `clat-plugin.json`). */
  dir: string;
  info: McpbInfo;
  cleanup(): Promise<void>;
}

const DIRNAME = '${__dirname}';

/** `${__dirname}` → the artifact root, `${user_config.k}` → `${config.k}`, `${HOME}` etc. now. */
function mapVariables(value: string): string {
  return value
    .replaceAll(DIRNAME, '${CLAT_PLUGIN_ROOT}')
    .replace(/\$\{user_config\.([A-Za-z0-9_-]+)\}/g, '$${config.$1}')
    .replaceAll('${HOME}', homedir())
    .replaceAll('${pathSeparator}', '/')
    .replaceAll('${/}', '/');
}

function stringList(value: unknown, where: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    throw invalid(where, 'must be a list of strings');
  }
  return value as string[];
}

/** A bundle-relative file an `mcp_config` value names (`${__dirname}/x` or plain `x`). */
function bundlePath(value: string): string | undefined {
  const raw = value.startsWith(`${DIRNAME}/`) ? value.slice(DIRNAME.length + 1) : value;
  if (raw.includes('${')) return undefined;
  const path = normalize(raw).split('\\').join('/');
  return relativePathProblem(path) === undefined ? path : undefined;
}

function mapUserConfig(raw: unknown, where: string): Record<string, PluginUserConfigField> {
  if (raw === undefined) return {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw invalid(where, 'user_config must be an object');
  }
  const out: Record<string, PluginUserConfigField> = {};
  for (const [key, value] of Object.entries(raw as Record<string, Record<string, unknown>>)) {
    // `__proto__` would set the map's prototype instead of adding a setting.
    if (!USER_CONFIG_KEY_PATTERN.test(key) || key === '__proto__')
      throw invalid(where, `user_config key ${JSON.stringify(key)} is not supported`);
    const type = value?.type;
    if (!['string', 'number', 'boolean', 'directory', 'file'].includes(String(type))) {
      throw invalid(
        where,
        `user_config.${key}.type ${JSON.stringify(type)} is not string, number, boolean, directory or file`,
      );
    }
    const field: PluginUserConfigField = {
      type: type as PluginUserConfigField['type'],
      title: typeof value.title === 'string' && value.title !== '' ? value.title : key,
    };
    if (typeof value.description === 'string') field.description = value.description;
    if (value.required === true) field.required = true;
    if (value.sensitive === true) field.sensitive = true;
    if (value.multiple === true) field.multiple = true;
    if (typeof value.min === 'number') field.min = value.min;
    if (typeof value.max === 'number') field.max = value.max;
    const fallback = value.default;
    if (typeof fallback === 'string') field.default = mapVariables(fallback);
    else if (typeof fallback === 'number' || typeof fallback === 'boolean')
      field.default = fallback;
    else if (Array.isArray(fallback))
      field.default = fallback.map((item) => mapVariables(String(item)));
    out[key] = field;
  }
  return out;
}

function checkCompatibility(compatibility: unknown, where: string): void {
  if (compatibility === undefined) return;
  if (typeof compatibility !== 'object' || compatibility === null) {
    throw invalid(where, 'compatibility must be an object');
  }
  const { platforms, runtimes } = compatibility as {
    platforms?: unknown;
    runtimes?: Record<string, unknown>;
  };
  if (Array.isArray(platforms) && !platforms.includes(process.platform)) {
    throw invalid(where, `supports ${platforms.join(', ')}, not ${process.platform}`);
  }
  const node = runtimes?.node;
  if (typeof node === 'string') {
    if (semver.validRange(node) === null)
      throw invalid(
        where,
        `compatibility.runtimes.node ${JSON.stringify(node)} is not a semver range`,
      );
    if (!semver.satisfies(process.versions.node, node, { includePrerelease: true })) {
      throw invalid(where, `needs Node.js ${node}; this clat runs on ${process.versions.node}`);
    }
  }
}

function described(list: unknown): { name: string; description?: string }[] {
  if (!Array.isArray(list)) return [];
  return list
    .filter(
      (item): item is { name: string; description?: unknown } => typeof item?.name === 'string',
    )
    .map((item) =>
      typeof item.description === 'string'
        ? { name: item.name, description: item.description }
        : { name: item.name },
    );
}

/**
 * Stages an MCPB bundle (file or directory) in a fresh temporary directory and generates its
 * manifest v1. Python and uv servers are refused: clat has no Python runtime to run them with.
 */
export async function stageMcpbBundle(
  source: string,
  options: { id?: string } = {},
): Promise<StagedMcpbBundle> {
  const temp = await mkdtemp(join(tmpdir(), 'clat-mcpb-'));
  const cleanup = () => rm(temp, { recursive: true, force: true });
  try {
    const dir = join(temp, 'bundle');
    let signed = false;
    if ((await lstat(source)).isFile()) signed = (await unpackBundle(source, dir)).signed;
    else await cp(source, dir, { recursive: true, verbatimSymlinks: true, errorOnExist: true });
    const where = `${source} ${MCPB_MANIFEST}`;
    if (await lstat(join(dir, MANIFEST_FILE)).catch(() => undefined)) {
      throw invalid(
        source,
        `already contains ${MANIFEST_FILE}; install it as a clat package instead`,
      );
    }
    let text: string;
    try {
      text = (
        await readBoundedFile(join(dir, MCPB_MANIFEST), MANIFEST_LIMITS.manifestBytes, where)
      ).toString('utf8');
    } catch (error) {
      throw invalid(where, (error as Error).message);
    }
    let raw: Record<string, unknown>;
    try {
      raw = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw invalid(where, `is not valid JSON (${describeJsonSyntaxError(text)})`);
    }
    const version = String(raw.manifest_version ?? raw.dxt_version ?? '');
    if (!MCPB_VERSIONS.includes(version)) {
      throw invalid(
        where,
        `manifest_version ${JSON.stringify(version)} is not one of ${MCPB_VERSIONS.join(', ')}`,
      );
    }
    for (const key of ['name', 'version', 'description'] as const) {
      if (typeof raw[key] !== 'string' || raw[key] === '')
        throw invalid(where, `${key} is required`);
    }
    const server = raw.server as
      | {
          type?: unknown;
          entry_point?: unknown;
          mcp_config?: McpConfig & { platform_overrides?: Record<string, McpConfig> };
        }
      | undefined;
    const type = String(server?.type ?? '');
    if (type === 'python' || type === 'uv') {
      throw invalid(
        where,
        `server.type ${type} needs a Python runtime, which clat does not provide; only node and binary bundles can be installed`,
      );
    }
    if (type !== 'node' && type !== 'binary')
      throw invalid(where, `server.type ${JSON.stringify(type)} is not node or binary`);
    if (typeof server?.entry_point !== 'string')
      throw invalid(where, 'server.entry_point is required');
    checkCompatibility(raw.compatibility, where);
    // A platform override replaces command, args and env wholesale (reference behaviour).
    const base: McpConfig =
      server.mcp_config ??
      (type === 'node'
        ? { command: 'node', args: [`${DIRNAME}/${server.entry_point}`] }
        : { command: `${DIRNAME}/${server.entry_point}` });
    const override = server.mcp_config?.platform_overrides?.[process.platform];
    const config: McpConfig = override === undefined ? base : { ...base, ...override };
    if (typeof config.command !== 'string')
      throw invalid(where, 'server.mcp_config.command is required');
    let args = stringList(config.args, `${where} server.mcp_config.args`);
    let entry: string | undefined;
    let interpreter: 'node' | undefined;
    if (type === 'node') {
      if (config.command !== 'node')
        throw invalid(
          where,
          `a node server must run "node", not ${JSON.stringify(config.command)}`,
        );
      const index = args.findIndex((arg) => !arg.startsWith('-'));
      entry = index === -1 ? undefined : bundlePath(args[index] as string);
      if (entry === undefined)
        throw invalid(where, 'server.mcp_config.args names no bundle script to run with node');
      args = [...args.slice(0, index), ...args.slice(index + 1)];
      interpreter = 'node';
    } else {
      entry = bundlePath(config.command);
      if (entry === undefined)
        throw invalid(
          where,
          `server.mcp_config.command ${JSON.stringify(config.command)} is not a file in the bundle`,
        );
    }
    const entryBytes = await readFile(join(dir, ...entry.split('/'))).catch(() => {
      throw invalid(where, `the server entry ${entry} is not in the bundle`);
    });
    const env: Record<string, string> = {};
    if (config.env !== undefined) {
      if (typeof config.env !== 'object' || config.env === null)
        throw invalid(where, 'server.mcp_config.env must be an object');
      for (const [name, value] of Object.entries(config.env as Record<string, unknown>)) {
        if (typeof value !== 'string')
          throw invalid(where, `server.mcp_config.env.${name} must be a string`);
        if (name === '__proto__')
          throw invalid(where, 'server.mcp_config.env.__proto__ is not supported');
        env[name] = mapVariables(value);
      }
    }
    const userConfig = mapUserConfig(raw.user_config, where);
    const name = raw.name as string;
    const fallbackId = name
      .toLowerCase()
      .replace(/[^a-z0-9._-]/g, '-')
      .replace(/^[^a-z0-9]+/, '');
    const id =
      options.id ??
      (PLUGIN_ID_PATTERN.test(fallbackId)
        ? fallbackId
        : `mcpb-${createHash('sha256').update(name).digest('hex').slice(0, 12)}`);
    const display =
      typeof raw.display_name === 'string' && raw.display_name.trim() !== ''
        ? raw.display_name
        : name;
    const manifest: PluginManifestInput = {
      manifestVersion: 1,
      id,
      name: display.slice(0, MANIFEST_LIMITS.nameChars),
      version: (raw.version as string).slice(0, MANIFEST_LIMITS.versionChars),
      description: (raw.description as string).slice(0, MANIFEST_LIMITS.descriptionChars),
      runtime: {
        kind: 'mcp-stdio',
        entry,
        sha256: createHash('sha256').update(entryBytes).digest('hex'),
        ...(interpreter === undefined ? {} : { interpreter }),
        ...(args.length === 0 ? {} : { args: args.map(mapVariables) }),
        ...(Object.keys(env).length === 0 ? {} : { env }),
      },
      capabilities: { tools: true },
      ...(Object.keys(userConfig).length === 0 ? {} : { userConfig }),
      compatibility: { kind: 'mcpb', revision: version },
    };
    await writeFile(join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
    const info: McpbInfo = {
      manifestVersion: version,
      serverType: type,
      tools: described(raw.tools),
      prompts: described(raw.prompts),
      toolsGenerated: raw.tools_generated === true,
      userConfig,
      ...(raw.compatibility === undefined ? {} : { compatibility: raw.compatibility }),
      signed,
    };
    return { dir, info, cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
