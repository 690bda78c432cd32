/** `clat plugin`: inspect, install, update, enable/disable, roll back, uninstall, list and pack packages. @module */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { sanitizeTerminalLine } from '@clat/kernel';
import {
  type InspectedPackage,
  inspectPackage,
  isMcpbSource,
  isPackagingError,
  type McpbInfo,
  NPM_SPEC_PREFIX,
  type PluginListEntry,
  PluginStore,
  packPackage,
  parseNpmSpec,
  stageMcpbBundle,
  stageNpmPackage,
  trustLabel,
  unpackContainer,
} from '@clat/packaging';
import { parseFlags } from '../cli-options.js';
import type { Command, CommandIO } from '../command.js';
import { resolveClatHome } from '../config/clat-home.js';
import { CliError, CliErrorCode } from '../errors.js';
import { type InstallFlags, installFrom, updateFrom } from './plugin-install.js';

const USAGE = `Usage: clat plugin <action> [options]

Sources: a package directory, a .clatpkg file, npm:<name>[@<version|range|tag>], or an MCP
Bundle (a .mcpb file or an unpacked directory with an MCPB manifest.json).

Actions:
  inspect <source> [--json]             Validate a package and show what it asks for (read-only)
  install <source>                      Install a package
  update <id|source>                    Replace an installed package (the old one becomes the
                                        rollback); an npm package moves to the newest version
                                        matching the range it was installed with
  rollback <id>                         Swap the active and the rollback version
  repair <id>                           Restore the installed bytes from the stored copy
                                        (removes files a server wrote into its directory)
  disable <id>                          Stop launching a package
  enable <id>                           Launch a package again (verifies its installed bytes)
  uninstall <id>                        Remove a package and its bytes
  list [--json]                         Installed packages with version, trust, source and health
  pack <dir> --output <file.clatpkg>    Write a deterministic .clatpkg container

Install and update options:
  -y, --yes                   Grant the tools capability without asking (asked y/N on a terminal)
      --accept-capabilities   Grant every capability the package adds (needed beyond tools)
      --config <key=value>    A setting the package declares (repeatable); missing required
                              settings are asked for on a terminal
      --config-file <file>    Plugin config (JSON object, at most 64 KiB, no symlink)
      --config-json <json>    Plugin config inline; without any, update keeps the current config
      --bin <name>            npm: the package's bin that runs the server (asked when several)
      --env <NAME=value>      npm: environment for the server; \${CLAT_PLUGIN_DATA} and
                              \${config.KEY} are substituted at launch (repeatable)
      --allow-scripts         npm: run dependency install scripts (never run otherwise)
      --id <id>               npm/MCPB: the package id (default: the unscoped name)

npm sources are resolved and fetched by npm with this machine's npm configuration; the exact
version and the registry integrity are recorded. Each server gets a private data directory,
$CLAT_PLUGIN_DATA (<CLAT_HOME>/plugin-data/<id>, 0700). Packages live in
$CLAT_HOME/plugin-store (default ~/.clat/plugin-store). Restart CLAT to apply.
`;

/** Exit code when a capability expansion was not accepted (distinct, so scripts can tell). */
const EXIT_CAPABILITIES = 3;

function usage(message: string): CliError {
  return new CliError(CliErrorCode.CLI_USAGE, `clat plugin: ${message}; see "clat plugin --help"`);
}

function one(positionals: string[], what: string): string {
  const [value, ...rest] = positionals;
  if (value === undefined || value === '') throw usage(`expected ${what}`);
  if (rest.length > 0) throw usage(`unexpected argument ${JSON.stringify(rest[0])}`);
  return value;
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() === true;
}

/**
 * Inspects a directory, a `.clatpkg`, an `npm:` spec or an MCPB bundle (staged in a temporary
 * directory, then removed).
 */
async function inspectSource(
  source: string,
  io: CommandIO,
  bin: string | undefined,
): Promise<{ inspected: InspectedPackage; mcpb?: McpbInfo }> {
  if (source.startsWith(NPM_SPEC_PREFIX)) {
    const staged = await stageNpmPackage({
      spec: parseNpmSpec(source),
      ...(bin === undefined ? {} : { bin }),
      processEnv: io.env,
    });
    try {
      return { inspected: { ...(await inspectPackage(staged.dir)), dir: source } };
    } finally {
      await staged.cleanup();
    }
  }
  const path = resolve(io.cwd, source);
  if (await isMcpbSource(path)) {
    const staged = await stageMcpbBundle(path);
    try {
      return { inspected: { ...(await inspectPackage(staged.dir)), dir: path }, mcpb: staged.info };
    } finally {
      await staged.cleanup();
    }
  }
  return { inspected: await inspectPackageOrContainer(path) };
}

/** Inspects a directory or a `.clatpkg` (unpacked into a temporary directory, then removed). */
async function inspectPackageOrContainer(source: string): Promise<InspectedPackage> {
  if (!(await isFile(source))) return inspectPackage(source);
  const temp = await mkdtemp(join(tmpdir(), 'clat-inspect-'));
  try {
    const dir = join(temp, 'package');
    await unpackContainer(source, dir);
    const inspected = await inspectPackage(dir);
    return { ...inspected, dir: source };
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

function describeInspected(inspected: InspectedPackage, mcpb?: McpbInfo): Record<string, unknown> {
  const { manifest, tree } = inspected;
  const settings = Object.entries(manifest.userConfig ?? {}).map(
    ([key, field]) =>
      `${key} (${field.type}${field.required ? ', required' : ''}${field.sensitive ? ', sensitive' : ''})`,
  );
  return {
    id: manifest.id,
    name: manifest.name,
    version: manifest.version,
    ...(manifest.description === undefined ? {} : { description: manifest.description }),
    runtime: manifest.runtime.kind,
    entry: manifest.runtime.entry,
    entrySha256: manifest.runtime.sha256,
    treeSha256: tree.treeSha256,
    files: tree.files.length,
    bytes: tree.totalBytes,
    capabilities: inspected.capabilities,
    prompts: (manifest.prompts ?? []).map((prompt) => prompt.name),
    configSchema: manifest.configSchema !== undefined,
    settings,
    trust: trustLabel(inspected.trust),
    ...(inspected.publisher === undefined ? {} : { publisher: inspected.publisher.publisher }),
    ...(mcpb === undefined
      ? {}
      : {
          mcpb: `manifest ${mcpb.manifestVersion}, server ${mcpb.serverType}${mcpb.signed ? ', signed (signature not verified)' : ', unsigned'}`,
          declaredTools: mcpb.tools.map((tool) => tool.name),
          declaredPrompts: mcpb.prompts.map((prompt) => prompt.name),
          ...(mcpb.compatibility === undefined
            ? {}
            : { compatibility: JSON.stringify(mcpb.compatibility) }),
        }),
  };
}

function printTable(io: CommandIO, rows: PluginListEntry[]): void {
  if (rows.length === 0) {
    io.stdout.write('No plugins installed. Install one with "clat plugin install <dir>".\n');
    return;
  }
  const header = [
    'ID',
    'NAME',
    'VERSION',
    'RUNTIME',
    'TREE',
    'ENABLED',
    'ROLLBACK',
    'TRUST',
    'PUBLISHER',
  ];
  const cells = rows.map((row) => [
    row.id,
    sanitizeTerminalLine(row.name),
    sanitizeTerminalLine(row.version),
    row.runtime,
    row.treeSha256.slice(0, 12),
    row.enabled ? 'yes' : 'no',
    row.rollbackVersion ?? '-',
    row.trust,
    row.publisher === undefined
      ? '-'
      : `${row.publisher.publisher} (${row.publisher.publicKey.slice(0, 12)}…)`,
  ]);
  const widths = header.map((title, i) =>
    Math.max(title.length, ...cells.map((line) => (line[i] ?? '').length)),
  );
  const format = (line: string[]) =>
    `${line.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ')}  `;
  io.stdout.write(`${format(header)}HEALTH\n`);
  rows.forEach((row, index) => {
    io.stdout.write(`${format(cells[index] ?? [])}${sanitizeTerminalLine(row.health)}\n`);
  });
}

async function runAction(argv: string[], io: CommandIO): Promise<number> {
  const [action, ...rest] = argv;
  const { values, positionals } = parseFlags('plugin', rest, {
    json: { type: 'boolean' },
    'accept-capabilities': { type: 'boolean' },
    yes: { type: 'boolean', short: 'y' },
    config: { type: 'string', multiple: true },
    'config-file': { type: 'string' },
    'config-json': { type: 'string' },
    bin: { type: 'string' },
    env: { type: 'string', multiple: true },
    'allow-scripts': { type: 'boolean' },
    id: { type: 'string' },
    output: { type: 'string', short: 'o' },
  });
  const installFlags = [
    'accept-capabilities',
    'yes',
    'config',
    'config-file',
    'config-json',
    'bin',
    'env',
    'allow-scripts',
    'id',
  ] as const;
  if (action !== 'install' && action !== 'update') {
    const stray = installFlags.find(
      (flag) => values[flag] !== undefined && !(action === 'inspect' && flag === 'bin'),
    );
    if (stray !== undefined) throw usage(`--${stray} only applies to install and update`);
  }
  if (action !== 'pack' && values.output !== undefined) {
    throw usage('--output only applies to pack');
  }
  const store = new PluginStore({ clatHome: resolveClatHome(io.env, io.cwd).dir });

  switch (action) {
    case 'inspect': {
      const { inspected, mcpb } = await inspectSource(
        one(positionals, 'a package'),
        io,
        values.bin,
      );
      const summary = describeInspected(inspected, mcpb);
      if (values.json === true) {
        io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
        return 0;
      }
      for (const [key, value] of Object.entries(summary)) {
        const shown = Array.isArray(value) ? value.join(', ') || '(none)' : String(value);
        io.stdout.write(`${`${key}:`.padEnd(15)}${sanitizeTerminalLine(shown)}\n`);
      }
      return 0;
    }
    case 'install':
    case 'update': {
      const source = one(
        positionals,
        `a package ${action === 'update' ? 'id or source' : 'source'}`,
      );
      const flags = values as InstallFlags;
      const result =
        action === 'install'
          ? await installFrom(store, source, flags, io)
          : await updateFrom(store, source, flags, io);
      if ('unchanged' in result && result.unchanged === true) {
        io.stdout.write(
          `${sanitizeTerminalLine(result.id)} is already at ${sanitizeTerminalLine(result.version)}, the newest version its range allows\n`,
        );
        return 0;
      }
      const verb = action === 'install' ? 'Installed' : 'Updated';
      io.stdout.write(
        `${verb} ${sanitizeTerminalLine(result.id)} ${sanitizeTerminalLine(result.version)} (tree ${result.treeSha256.slice(0, 12)})\n`,
      );
      if (result.granted.length > 0) {
        io.stdout.write(`Granted capabilities: ${result.granted.join(', ')}\n`);
      }
      if (result.rollbackVersion !== undefined) {
        io.stdout.write(`Rollback: ${result.rollbackVersion}\n`);
      }
      io.stdout.write('Restart CLAT to apply.\n');
      return 0;
    }
    case 'disable':
    case 'enable': {
      const id = one(positionals, 'a plugin id');
      await (action === 'enable' ? store.enable(id) : store.disable(id));
      io.stdout.write(
        `${action === 'enable' ? 'Enabled' : 'Disabled'} ${id}. Restart CLAT to apply.\n`,
      );
      return 0;
    }
    case 'rollback': {
      const result = await store.rollback(one(positionals, 'a plugin id'));
      io.stdout.write(
        `Rolled back ${result.id} to ${result.version} (rollback is now ${result.rollbackVersion}). Restart CLAT to apply.\n`,
      );
      return 0;
    }
    case 'repair': {
      const result = await store.repair(one(positionals, 'a plugin id'));
      if (result.repaired.length === 0) {
        io.stdout.write(
          `${result.id} ${sanitizeTerminalLine(result.version)} is intact; nothing to repair.\n`,
        );
        return 0;
      }
      for (const line of result.repaired)
        io.stdout.write(`Repaired ${sanitizeTerminalLine(line)}\n`);
      io.stdout.write(
        `${result.id} ${sanitizeTerminalLine(result.version)} is restored. Restart CLAT to apply.\n`,
      );
      return 0;
    }
    case 'uninstall': {
      const id = one(positionals, 'a plugin id');
      const { cleanupError } = await store.uninstall(id);
      io.stdout.write(`Uninstalled ${id}. Restart CLAT to apply.\n`);
      if (cleanupError !== undefined) {
        io.stderr.write(`clat: note: could not remove all bytes of ${id}: ${cleanupError}\n`);
      }
      return 0;
    }
    case 'list': {
      if (positionals.length > 0) throw usage('list takes no arguments');
      const rows = await store.list();
      if (values.json === true) io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      else printTable(io, rows);
      return 0;
    }
    case 'pack': {
      const dir = resolve(io.cwd, one(positionals, 'a package directory'));
      if (values.output === undefined) throw usage('pack needs --output <file.clatpkg>');
      const result = await packPackage(dir, resolve(io.cwd, values.output));
      io.stdout.write(
        `Packed ${result.files} files (${result.bytes} bytes) into ${result.output}\nsha256 ${result.sha256}\ntree   ${result.treeSha256}\n`,
      );
      return 0;
    }
    case undefined:
      throw usage('expected an action');
    default:
      throw usage(`unknown action ${JSON.stringify(action)}`);
  }
}

export const pluginCommand: Command = {
  name: 'plugin',
  summary: 'Manage installed plugin packages (inspect, install, update, list, pack, ...)',
  usage: USAGE,
  async run(argv, io) {
    try {
      return await runAction(argv, io);
    } catch (error) {
      // Packaging failures are expected user-facing outcomes: one line, the code, no stack.
      if (isPackagingError(error)) {
        io.stderr.write(`clat: ${sanitizeTerminalLine(error.message)} [${error.code}]\n`);
        return error.code === 'CAPABILITY_EXPANSION' ? EXIT_CAPABILITIES : 1;
      }
      // So are file-system refusals (read-only or foreign-owned CLAT home, full disk).
      const code = (error as NodeJS.ErrnoException | undefined)?.code;
      if (error instanceof Error && typeof code === 'string' && /^E[A-Z]+$/.test(code)) {
        io.stderr.write(`clat: plugin ${argv[0] ?? ''}: ${error.message}\n`);
        return 1;
      }
      throw error;
    }
  },
};
