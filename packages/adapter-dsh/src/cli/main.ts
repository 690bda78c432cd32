/**
 * `clat-dsh`: author tooling for serving DSH plugins to CLAT.
 *   inspect <plugin> [--json] [--config-json J]       which seams the plugin uses / lacks
 *   test <plugin|package> [--config-json J]          spawned initialize + tools/list smoke (both eras)
 *   package <plugin> --out DIR [--id I] [--name N] [--version V] [--hints-json J]
 *           [--config-json J] [--allow-partial] [--force] [--no-smoke]
 *   serve <plugin> [--config-json J] [--hints-json J] serve the plugin on stdio (development)
 * Errors exit 1 with one line on stderr. `inspect` and `package` run the plugin's code (say so on
 * stderr) in a child process that is not given the working directory or environment.
 * @module
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  describeJsonSyntaxError,
  MANIFEST_FILE,
  parseManifest,
  sanitizeTerminalLine,
  sanitizeTerminalText,
} from '@clat/kernel';
import { DshAdapterError, DshErrorCode, describeError } from '../errors.js';
import { reserveStdoutForProtocol, servePluginProcess } from '../serve-process.js';
import { resolvePluginPackage } from './entry.js';
import { formatInspectReport, loadPluginModule, pluginExport } from './inspect.js';
import {
  INSPECT_CHILD_COMMAND,
  inspectInChild,
  RUNS_PLUGIN_CODE_NOTE,
  serveInspectChild,
} from './inspect-child.js';
import {
  packageJsonClatOptions,
  packagePlugin,
  strayHintsProblem,
  validateHints,
} from './package.js';
import { formatSmokeReport, type SpawnSpec, smokeTest } from './smoke.js';

export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  cwd: string;
}

const USAGE = `usage:
  clat-dsh inspect <plugin-dir|module> [--json] [--config-json JSON]
  clat-dsh test <plugin-dir|package-dir> [--config-json JSON]
  clat-dsh package <plugin-dir> --out DIR [--id ID] [--name NAME] [--version V] [--hints-json JSON]
                   [--config-json JSON] [--allow-partial] [--force] [--no-smoke]
  clat-dsh serve <plugin-dir|module> [--config-json JSON] [--hints-json JSON]
`;

const VALUE_FLAGS = new Set([
  '--out',
  '--id',
  '--name',
  '--version',
  '--hints-json',
  '--config-json',
]);
const BOOLEAN_FLAGS = new Set(['--json', '--allow-partial', '--force', '--no-smoke']);

interface Parsed {
  command: string;
  target: string;
  values: Map<string, string>;
  flags: Set<string>;
}

function parseArgs(argv: string[]): Parsed {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h') {
    throw new DshAdapterError(DshErrorCode.CLI_USAGE, 'no command given');
  }
  const values = new Map<string, string>();
  const flags = new Set<string>();
  const positional: string[] = [];
  for (let i = 0; i < rest.length; i += 1) {
    const arg = rest[i] as string;
    if (VALUE_FLAGS.has(arg)) {
      const value = rest[i + 1];
      if (value === undefined)
        throw new DshAdapterError(DshErrorCode.CLI_USAGE, `${arg} needs a value`);
      values.set(arg, value);
      i += 1;
    } else if (BOOLEAN_FLAGS.has(arg)) {
      flags.add(arg);
    } else if (arg.startsWith('--')) {
      throw new DshAdapterError(DshErrorCode.CLI_USAGE, `unknown option ${arg}`);
    } else {
      positional.push(arg);
    }
  }
  if (positional.length !== 1) {
    throw new DshAdapterError(DshErrorCode.CLI_USAGE, `${command} needs exactly one plugin path`);
  }
  return { command, target: positional[0] as string, values, flags };
}

function jsonFlag(parsed: Parsed, flag: string): unknown {
  const raw = parsed.values.get(flag);
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw new DshAdapterError(
      DshErrorCode.CLI_USAGE,
      `${flag} is not valid JSON: ${describeJsonSyntaxError(raw)}`,
    );
  }
}

/** How `test` starts the server: an installable package's entry, or this CLI's `serve`. */
async function spawnSpecFor(target: string, io: CliIo, config: unknown): Promise<SpawnSpec> {
  const dir = resolve(io.cwd, target);
  const env = { CLAT_PLUGIN_CONFIG: config === undefined ? '' : JSON.stringify(config) };
  const manifestPath = join(dir, MANIFEST_FILE);
  if (existsSync(manifestPath)) {
    const parsed = parseManifest(manifestPath, await readFile(manifestPath, 'utf8'));
    if (!parsed.ok) {
      throw new DshAdapterError(
        DshErrorCode.PLUGIN_NOT_LOADABLE,
        parsed.issues.map((issue) => `${issue.file}: ${issue.path}: ${issue.message}`).join('; '),
      );
    }
    if (parsed.manifest.runtime.kind !== 'mcp-stdio') {
      throw new DshAdapterError(
        DshErrorCode.PLUGIN_NOT_LOADABLE,
        `${manifestPath}: runtime.kind is not mcp-stdio`,
      );
    }
    return {
      command: join(dir, parsed.manifest.runtime.entry),
      args: parsed.manifest.runtime.args ?? [],
      cwd: dir,
      env,
    };
  }
  return { command: process.execPath, args: [BIN, 'serve', dir], cwd: io.cwd, env };
}

/** This CLI's bin: `test` serves through it, `inspect`/`package` run plugin code in its child. */
const BIN = fileURLToPath(new URL('../../bin/clat-dsh.js', import.meta.url));

export async function main(argv: string[], io: CliIo): Promise<number> {
  if (argv[0] === INSPECT_CHILD_COMMAND && argv.length === 1) return serveInspectChild();
  let parsed: Parsed;
  try {
    parsed = parseArgs(argv);
  } catch (error) {
    io.stderr.write(`clat-dsh: ${sanitizeTerminalText((error as Error).message)}\n${USAGE}`);
    return 1;
  }
  try {
    const config = jsonFlag(parsed, '--config-json');
    const hintsFlag = jsonFlag(parsed, '--hints-json');
    const toolHints =
      hintsFlag === undefined ? undefined : validateHints(hintsFlag, '--hints-json');
    switch (parsed.command) {
      case 'inspect': {
        const pkg = await resolvePluginPackage(parsed.target, io.cwd);
        const hints = toolHints ?? packageJsonClatOptions(pkg).toolHints;
        io.stderr.write(RUNS_PLUGIN_CODE_NOTE);
        const report = await inspectInChild(BIN, pkg, {
          ...(config === undefined ? {} : { config }),
          ...(hints === undefined ? {} : { toolHints: hints }),
        });
        io.stdout.write(
          parsed.flags.has('--json')
            ? `${JSON.stringify(report, null, 2)}\n`
            : formatInspectReport(report),
        );
        const stray = strayHintsProblem(pkg, toolHints !== undefined, hints ?? {}, report);
        if (stray !== undefined) {
          io.stderr.write(
            `clat-dsh: ${sanitizeTerminalText(stray)}; "clat-dsh package" refuses this\n`,
          );
        }
        return report.unsupported.length > 0 || stray !== undefined ? 1 : 0;
      }
      case 'test': {
        const report = await smokeTest(await spawnSpecFor(parsed.target, io, config));
        io.stdout.write(formatSmokeReport(report));
        return 0;
      }
      case 'package': {
        const out = parsed.values.get('--out');
        if (out === undefined)
          throw new DshAdapterError(DshErrorCode.CLI_USAGE, 'package needs --out DIR');
        const pkg = await resolvePluginPackage(parsed.target, io.cwd);
        io.stderr.write(RUNS_PLUGIN_CODE_NOTE);
        const result = await packagePlugin(pkg, {
          out: resolve(io.cwd, out),
          inspect: (plugin, options) => inspectInChild(BIN, plugin, options),
          ...(parsed.values.has('--id') ? { id: parsed.values.get('--id') as string } : {}),
          ...(parsed.values.has('--name') ? { name: parsed.values.get('--name') as string } : {}),
          ...(parsed.values.has('--version')
            ? { version: parsed.values.get('--version') as string }
            : {}),
          ...(toolHints === undefined ? {} : { toolHints }),
          ...(config === undefined ? {} : { smokeConfig: config }),
          allowPartial: parsed.flags.has('--allow-partial'),
          force: parsed.flags.has('--force'),
          smoke: !parsed.flags.has('--no-smoke'),
        });
        io.stdout.write(
          `packaged ${sanitizeTerminalLine(result.manifest.id)} ${sanitizeTerminalLine(result.manifest.version)} → ${sanitizeTerminalLine(result.dir)}\n${result.smoke === undefined ? '' : formatSmokeReport(result.smoke)}`,
        );
        return 0;
      }
      case 'serve': {
        const pkg = await resolvePluginPackage(parsed.target, io.cwd);
        const hints = toolHints ?? packageJsonClatOptions(pkg).toolHints;
        const output = reserveStdoutForProtocol();
        const loaded = await loadPluginModule(pkg);
        await servePluginProcess(pluginExport(loaded.module), {
          output,
          ...(typeof pkg.packageJson?.name === 'string' ? { name: pkg.packageJson.name } : {}),
          ...(typeof pkg.packageJson?.version === 'string'
            ? { version: pkg.packageJson.version }
            : {}),
          ...(hints === undefined ? {} : { toolHints: hints }),
          ...(config === undefined ? {} : { config }),
        });
        await loaded.cleanup();
        return 0;
      }
      default:
        throw new DshAdapterError(DshErrorCode.CLI_USAGE, `unknown command ${parsed.command}`);
    }
  } catch (error) {
    // The error may carry what the plugin threw or its server sent: sanitised, like clat's.
    io.stderr.write(`clat-dsh: ${sanitizeTerminalText(describeError(error))}\n`);
    if (error instanceof DshAdapterError && error.code === DshErrorCode.CLI_USAGE)
      io.stderr.write(USAGE);
    return 1;
  }
}
