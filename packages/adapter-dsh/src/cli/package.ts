/**
 * `clat-dsh package`: turns a DSH plugin package into an installable CLAT `mcp-stdio` package
 * directory: one self-contained executable entry (`server.mjs`, esbuild bundle of the plugin,
 * this adapter and its dependencies, mode 0755) plus a v1 `clat-plugin.json` whose capabilities
 * come from `inspect`. The staged package is smoke-tested, then published atomically (staging
 * dir + rename; `--force` swaps out the old directory only after the new one is complete).
 * @module
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import {
  MANIFEST_FILE,
  MANIFEST_LIMITS,
  PLUGIN_ID_PATTERN,
  type PluginManifestInput,
  parseManifest,
} from '@clat/kernel';
import { writeFileAtomic } from '@clat/node-files';
import { DshAdapterError, DshErrorCode } from '../errors.js';
import { TOOL_HINTS, type ToolHint } from '../seams/tools.js';
import { adapterModulePath, bundle, type PluginPackage } from './entry.js';
import { type InspectReport, inspectPlugin } from './inspect.js';
import type { InspectOptions } from './inspect-child.js';
import { type SmokeReport, smokeTest } from './smoke.js';

/** The packaged entry, relative to the package root. */
export const PACKAGE_ENTRY = 'server.mjs';

export interface PackageOptions {
  out: string;
  id?: string;
  name?: string;
  version?: string;
  description?: string;
  toolHints?: Readonly<Record<string, ToolHint>>;
  /** Package even when the plugin uses seams the adapter cannot serve. */
  allowPartial?: boolean;
  /** Replace an existing output directory. */
  force?: boolean;
  /** Skip the spawned smoke test of the staged package. */
  smoke?: boolean;
  /** Configuration the smoke test serves the package with (as `CLAT_PLUGIN_CONFIG`). */
  smokeConfig?: unknown;
  /** How the plugin is inspected (it runs plugin code); the CLI uses a child process. */
  inspect?: (pkg: PluginPackage, options: InspectOptions) => Promise<InspectReport>;
}

export interface PackageResult {
  dir: string;
  manifest: PluginManifestInput;
  report: InspectReport;
  smoke: SmokeReport | undefined;
}

/** `dsh.` + the npm name with `@`/`/` and other non-id characters folded (≤128). */
export function defaultPackageId(npmName: string): string {
  const folded = npmName
    .toLowerCase()
    .replace(/^@/, '')
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .replace(/-+$/, '');
  return `dsh.${folded === '' ? 'plugin' : folded}`.slice(0, MANIFEST_LIMITS.idChars);
}

/**
 * The keys of package.json `"clat"`: `id` and `toolHints` are clat-dsh's; `package` (the built
 * package directory) is `clat plugin`'s, in the same object of a project `clat plugin new` wrote.
 */
const CLAT_KEYS = ['id', 'toolHints', 'package'];

/** `<root>/package.json clat`: how messages name that object (and `.id`, `.toolHints` after it). */
function clatField(pkg: PluginPackage): string {
  return `${join(pkg.root, 'package.json')} clat`;
}

/**
 * Reads `"clat": { "id", "toolHints" }` from the plugin's package.json. A key it does not know,
 * or an id that is not a string, is refused naming the file: a typo would otherwise be ignored
 * and the package built with a default the author did not mean.
 */
export function packageJsonClatOptions(pkg: PluginPackage): {
  id?: string;
  toolHints?: Record<string, ToolHint>;
} {
  const clat = pkg.packageJson?.clat;
  if (clat === undefined) return {};
  const where = clatField(pkg);
  if (typeof clat !== 'object' || clat === null || Array.isArray(clat)) {
    throw new DshAdapterError(
      DshErrorCode.PLUGIN_NOT_LOADABLE,
      `${where} must be an object with ${CLAT_KEYS.join(', ')}`,
    );
  }
  const record = clat as Record<string, unknown>;
  const unknown = Object.keys(record).find((key) => !CLAT_KEYS.includes(key));
  if (unknown !== undefined) {
    throw new DshAdapterError(
      DshErrorCode.PLUGIN_NOT_LOADABLE,
      `${where}.${unknown} is not a key CLAT reads; use ${CLAT_KEYS.join(', ')}`,
    );
  }
  const result: { id?: string; toolHints?: Record<string, ToolHint> } = {};
  if (record.id !== undefined) {
    if (typeof record.id !== 'string') {
      throw new DshAdapterError(DshErrorCode.PLUGIN_NOT_LOADABLE, `${where}.id must be a string`);
    }
    result.id = record.id;
  }
  if (record.toolHints !== undefined)
    result.toolHints = validateHints(record.toolHints, `${where}.toolHints`);
  return result;
}

export function validateHints(value: unknown, where: string): Record<string, ToolHint> {
  // A bad flag is a usage error; a bad package.json is the plugin's problem, not the command's.
  const code = where.startsWith('--') ? DshErrorCode.CLI_USAGE : DshErrorCode.PLUGIN_NOT_LOADABLE;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DshAdapterError(code, `${where} must be an object of tool name → hint`);
  }
  for (const [tool, hint] of Object.entries(value)) {
    if (!(TOOL_HINTS as readonly unknown[]).includes(hint)) {
      throw new DshAdapterError(
        code,
        `${where}.${tool} is ${JSON.stringify(hint)}; use one of ${TOOL_HINTS.join(', ')}`,
      );
    }
  }
  return value as Record<string, ToolHint>;
}

/**
 * What is wrong when a hint names a tool the inspected plugin does not register, else undefined.
 * Such a key is a typo that would leave the real tool Destructive. Only known once apply() ran.
 */
export function strayHintsProblem(
  pkg: PluginPackage,
  fromFlag: boolean,
  hints: Readonly<Record<string, ToolHint>>,
  report: InspectReport,
): string | undefined {
  if (!report.applied) return undefined;
  const names = new Set(report.tools.map((tool) => tool.name));
  const stray = Object.keys(hints).filter((tool) => !names.has(tool));
  if (stray.length === 0) return undefined;
  const where = fromFlag ? '--hints-json' : `${clatField(pkg)}.toolHints`;
  return `${where} names ${stray.map((tool) => JSON.stringify(tool)).join(', ')}, which the plugin does not register; its tools: ${[...names].join(', ') || '(none)'}`;
}

export async function packagePlugin(
  pkg: PluginPackage,
  options: PackageOptions,
): Promise<PackageResult> {
  const fromJson = packageJsonClatOptions(pkg);
  const npmName =
    typeof pkg.packageJson?.name === 'string' ? pkg.packageJson.name : basename(pkg.root);
  const id = options.id ?? fromJson.id ?? defaultPackageId(npmName);
  if (!PLUGIN_ID_PATTERN.test(id)) {
    // The default id is folded to fit; a bad one came from the flag or from package.json.
    const fromFlag = options.id !== undefined;
    throw new DshAdapterError(
      fromFlag ? DshErrorCode.CLI_USAGE : DshErrorCode.PLUGIN_NOT_LOADABLE,
      `${fromFlag ? '--id' : `${clatField(pkg)}.id`} ${JSON.stringify(id)} must be lowercase letters, digits, ".", "_" or "-", starting with a letter or digit, at most 128 characters`,
    );
  }
  const version =
    options.version ??
    (typeof pkg.packageJson?.version === 'string' ? pkg.packageJson.version : '0.0.0');
  const name = options.name ?? npmName;
  const toolHints = options.toolHints ?? fromJson.toolHints ?? {};
  const description =
    options.description ??
    (typeof pkg.packageJson?.description === 'string' ? pkg.packageJson.description : undefined);

  const report = await (options.inspect ?? inspectPlugin)(pkg, { toolHints });
  // Refused before anything is written.
  const fromFlag = options.toolHints !== undefined;
  const stray = strayHintsProblem(pkg, fromFlag, toolHints, report);
  if (stray !== undefined) {
    throw new DshAdapterError(
      fromFlag ? DshErrorCode.CLI_USAGE : DshErrorCode.PLUGIN_NOT_LOADABLE,
      stray,
    );
  }
  if (report.unsupported.length > 0 && options.allowPartial !== true) {
    throw new DshAdapterError(
      DshErrorCode.PACKAGE_FAILED,
      `the plugin uses seams the CLAT DSH adapter cannot serve: ${report.unsupported.join(', ')} (pass --allow-partial to package it anyway)`,
    );
  }

  const out = resolve(options.out);
  if (existsSync(out) && options.force !== true) {
    throw new DshAdapterError(
      DshErrorCode.PACKAGE_FAILED,
      `${out} already exists (pass --force to replace it)`,
    );
  }
  await mkdir(dirname(out), { recursive: true });
  const staging = `${out}.staging-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  try {
    const entry = join(staging, PACKAGE_ENTRY);
    const serveOptions = { name: id, version, toolHints };
    const adapter = adapterModulePath().file;
    await bundle({
      // stdout is reserved for the protocol BEFORE the plugin module (and its top-level code) loads.
      entryCode: [
        `import { reserveStdoutForProtocol, servePluginProcess } from ${JSON.stringify(adapter)};`,
        'const output = reserveStdoutForProtocol();',
        `const plugin = await import(${JSON.stringify(pkg.entry)});`,
        `await servePluginProcess(plugin.default ?? plugin, { ...${JSON.stringify(serveOptions)}, output });`,
        '',
      ].join('\n'),
      resolveDir: pkg.root,
      outfile: entry,
      packageRoot: pkg.root,
      // Nothing outside the package is inlined through a symlink inside it.
      refuseLinksOutside: true,
      shebang: true,
      minify: true,
    });
    await chmod(entry, 0o755);
    const sha256 = createHash('sha256')
      .update(await readFile(entry))
      .digest('hex');
    const manifest: PluginManifestInput = {
      manifestVersion: 1,
      id,
      name,
      version,
      ...(description === undefined ? {} : { description }),
      runtime: { kind: 'mcp-stdio', entry: PACKAGE_ENTRY, sha256, args: [] },
      capabilities: report.capabilities,
      configSchema: report.configSchema,
      compatibility: { kind: 'dsh' },
    };
    const parsed = parseManifest(MANIFEST_FILE, manifest);
    if (!parsed.ok) {
      throw new DshAdapterError(
        DshErrorCode.PACKAGE_FAILED,
        `the generated manifest is invalid: ${parsed.issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`,
      );
    }
    // Whole or not at all (0644, synced): a temp file under an unpredictable name, created
    // exclusively (nothing planted there is written through), renamed over it; removed on failure.
    await writeFileAtomic(join(staging, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`, {
      mode: 0o644,
    });
    const smoke =
      options.smoke === false
        ? undefined
        : await smokeTest({
            command: entry,
            args: [],
            cwd: staging,
            env: {
              CLAT_PLUGIN_CONFIG:
                options.smokeConfig === undefined ? '' : JSON.stringify(options.smokeConfig),
            },
          });
    await publish(staging, out);
    return { dir: out, manifest, report, smoke };
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}

/** Moves the complete staging dir into place; an old output is swapped out, then removed. */
async function publish(staging: string, out: string): Promise<void> {
  if (!existsSync(out)) {
    await rename(staging, out);
    return;
  }
  const backup = `${out}.old-${process.pid}`;
  await rename(out, backup);
  try {
    await rename(staging, out);
  } catch (error) {
    await rename(backup, out);
    throw error;
  }
  await rm(backup, { recursive: true, force: true });
}
