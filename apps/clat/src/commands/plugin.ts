/** `clat plugin`: inspect, install, update, enable/disable, roll back, uninstall, list and pack packages. @module */
import { readdir, readFile, rmdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  type ConfigIssue,
  MANIFEST_FILE,
  sanitizeTerminalLine,
  sanitizeTerminalText,
  shellWord,
} from '@clat/kernel';
import {
  environmentNames,
  inspectPackage,
  isPackagingError,
  NPM_SPEC_PREFIX,
  PackagingError,
  PluginStore,
  packPackage,
  pluginDataDir,
  removePluginData,
  semverProblem,
  sensitiveArgKeys,
  stampEntryDigest,
  versionChange,
} from '@clat/packaging';
import { parseFlags, unknownOptionOf } from '../cli-options.js';
import type { Command, CommandIO } from '../command.js';
import { resolveClatHome } from '../config/clat-home.js';
import { fieldHints } from '../config/field-hints.js';
import { existingServerNames } from '../config/mcp-config-file.js';
import { errorLine, fileErrorText } from '../error-line.js';
import { CliError, CliErrorCode } from '../errors.js';
import { foreignCommand } from '../foreign-commands.js';
import { isScaffoldKind, SCAFFOLD_KINDS, writeScaffold } from '../scaffold/scaffold.js';
import { jsonOutput } from '../ui/json-output.js';
import { formatInspected, formatPluginTable, sensitiveArgsNote } from '../ui/package-screen.js';
import { configurePlugin } from './plugin-configure.js';
import { describeInspected, formatBundleExtras, inspectSource } from './plugin-inspect.js';
import {
  givesSettings,
  type InstallFlags,
  installFrom,
  SETTINGS_FLAGS,
  updateFrom,
  usage,
} from './plugin-install.js';
import { packageDirOf } from './plugin-project.js';
import { exposedArgumentNotes, splitServerWords, withServerWordsMoved } from './server-args.js';

const USAGE = `Usage: clat plugin <action> [options]

Sources: a package directory, a .clatpkg file, a bare .wasm component, npm:<name>[@<version|
range|tag>], or an MCP Bundle (a .mcpb file or an unpacked directory with an MCPB manifest.json).

Actions:
  new <dsh|wasm|mcp> <name> [dir]       Create a plugin project (builds, tests and installs as is)
  inspect <source|id> [--json]          Validate a package and show what it asks for (read-only;
                                        an installed id shows its active version)
  install <source>                      Install a package (a plugin project directory installs the
                                        build output its package.json names in "clat.package")
  update <id|source>                    Replace an installed package (the old one becomes the
                                        rollback); an npm package moves to the newest version
                                        matching the range it was installed with
  rollback <id>                         Swap the active and the rollback version
  repair <id>                           Restore the installed bytes from the stored copy
                                        (removes files a server wrote into its directory)
  configure <id> [--json]               Show an installed package's settings (sensitive ones
                                        only as set); with --config, --config-file or
                                        --config-json change them (no fetch, same bytes)
  disable <id>                          Stop launching a package
  enable <id>                           Launch a package again (verifies its installed bytes)
  roots <id> on|off                     Offer its server the project root as an MCP root (on,
                                        the default), or not (off): a server that narrows itself
                                        to its roots (server-filesystem) then keeps the
                                        directories its arguments name
  uninstall <id> [--purge]              Remove a package and its bytes; its data directory
                                        (plugin-data/<id>) stays for a reinstall unless --purge
  list [--json]                         Installed packages with version, trust and health
  pack <dir> [--output <file.clatpkg>]  Compute the entry's sha256 into <dir>/clat-plugin.json; with
                                        --output also write a deterministic .clatpkg container

Install and update options:
  -y, --yes                   Grant the tools capability without asking (asked y/N on a terminal)
      --accept-capabilities   Grant every capability the package adds (needed beyond tools)
      --config <key=value>    A setting the package declares (repeatable); missing required
                              settings are asked for on a terminal
      --config-file <file>    Plugin config (JSON object, at most 64 KiB, no symlink)
      --config-json <json>    Plugin config inline; without any, update keeps the current config
      --id <id>               Package id for npm:, MCPB and .wasm sources (default: from the
                              name; @scope/mcp and @scope/mcp-server keep their scope)
      --bin <name>            npm: the package's bin that runs the server (asked when several);
                              update keeps the installed one unless given
      --env <NAME=value>      npm: environment for the server; \${CLAT_PLUGIN_DATA} and
                              \${config.KEY} are substituted at launch, and '\${VAR}' or
                              '\${VAR:-default}' is read from the environment CLAT starts
                              in, as in mcp.json, so a key is stored nowhere (repeatable); on
                              update, sets NAME and keeps the others (NAME= removes it)
      --allow-scripts         npm: run dependency install scripts (never run otherwise)
      -- <arg>...             npm: the server's own arguments, last (relative paths are made
                              absolute; \${CLAT_PLUGIN_DATA} is substituted at launch); update
                              keeps the installed ones unless given ("--" alone removes them)
      --host-tools <a,b>      Host tools a .wasm component may call (list_files, read_file, ...)

npm sources are resolved and fetched by npm with this machine's npm configuration; the exact
version and the registry integrity are recorded. Each installed server gets a private data
directory, $CLAT_PLUGIN_DATA (<CLAT_HOME>/plugin-data/<id>, 0700). Packages live in
$CLAT_HOME/plugin-store (default ~/.clat/plugin-store). Restart CLAT to apply.
`;

/** Exit code when a capability expansion was not accepted (distinct, so scripts can tell). */
const EXIT_CAPABILITIES = 3;

/**
 * The id to uninstall, and whether a package with it is installed (one registry read): `arg`
 * when a package has that id, else the id of the package a directory holds (`clat plugin
 * uninstall .` in a plugin project, as `install .` and `update .` take it).
 */
async function uninstallTarget(
  store: PluginStore,
  arg: string,
  cwd: string,
): Promise<{ id: string; installed: boolean }> {
  const { packages } = await store.readRegistry();
  if (Object.hasOwn(packages, arg)) return { id: arg, installed: true };
  const named = { id: arg, installed: false };
  const dir = resolve(cwd, arg);
  if (!(await stat(dir).catch(() => undefined))?.isDirectory()) return named;
  try {
    const manifest = join(await packageDirOf(dir), MANIFEST_FILE);
    const { id } = JSON.parse(await readFile(manifest, 'utf8')) as { id?: unknown };
    return typeof id === 'string' ? { id, installed: Object.hasOwn(packages, id) } : named;
  } catch {
    // No package to read an id from: "<arg> is not installed" says the rest.
    return named;
  }
}

/** Whether a directory exists and holds anything (a data directory a server never used is empty). */
async function hasEntries(dir: string): Promise<boolean> {
  return (await readdir(dir).catch(() => [])).length > 0;
}

/** Words people type for an action that has another name here. */
const ACTION_ALIASES: Record<string, string> = {
  remove: 'uninstall',
  rm: 'uninstall',
  delete: 'uninstall',
  add: 'install',
  upgrade: 'update',
  ls: 'list',
  create: 'new',
  init: 'new',
  config: 'configure',
  settings: 'configure',
};

function one(positionals: string[], what: string): string {
  const [value, ...rest] = positionals;
  if (value === undefined || value === '') throw usage(`expected ${what}`);
  if (rest.length > 0) throw usage(`unexpected argument ${JSON.stringify(rest[0])}`);
  return value;
}

const PLUGIN_OPTIONS = {
  json: { type: 'boolean' },
  'accept-capabilities': { type: 'boolean' },
  'config-file': { type: 'string' },
  'config-json': { type: 'string' },
  output: { type: 'string', short: 'o' },
  id: { type: 'string' },
  'host-tools': { type: 'string' },
  yes: { type: 'boolean', short: 'y' },
  config: { type: 'string', multiple: true },
  bin: { type: 'string' },
  env: { type: 'string', multiple: true },
  'allow-scripts': { type: 'boolean' },
  purge: { type: 'boolean' },
} as const;

/** Flags, positionals and the server's own words (after `--`, for npm: installs and updates). */
function parseAction(action: string | undefined, words: string[]) {
  const { own, server } = splitServerWords(words);
  try {
    return { ...parseFlags('plugin', own, PLUGIN_OPTIONS), server };
  } catch (error) {
    // `clat plugin install npm:@playwright/mcp --headless`: the server's option was taken for
    // CLAT's. Say where it goes, with the very words typed.
    const unknown = unknownOptionOf(error);
    const npm = own.some((word) => word.startsWith(NPM_SPEC_PREFIX));
    const moved =
      unknown === undefined || server !== undefined || !npm
        ? undefined
        : withServerWordsMoved(`clat plugin ${action}`, own, unknown);
    if (moved === undefined || (action !== 'install' && action !== 'update')) throw error;
    throw usage(
      `unknown option ${JSON.stringify(unknown)}; a server's own options go after --: ${moved}`,
    );
  }
}

/**
 * `clat plugin <action>` as typed, its source (the first operand) replaced by `source`: the
 * command a hint gives keeps every option the person typed (`--yes`, `--env`, the server's words).
 */
function withSourceReplaced(action: string, words: readonly string[], source: string): string {
  const { own, server } = splitServerWords(words);
  const { tokens } = parseArgs({
    args: own,
    options: PLUGIN_OPTIONS,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const at = tokens.find((token) => token.kind === 'positional')?.index;
  const typed = own.map((word, index) => (index === at ? source : word));
  const line = [...typed, ...(server === undefined ? [] : ['--', ...server])];
  return `clat plugin ${action} ${line.map((word) => shellWord(word)).join(' ')}`;
}

async function runAction(argv: string[], io: CommandIO): Promise<number> {
  const [action, ...rest] = argv;
  const { values, positionals, server } = parseAction(action, rest);
  if (server !== undefined && action !== 'install' && action !== 'update') {
    throw usage('arguments after -- only apply to install and update of npm: sources');
  }
  const installFlags = [
    'accept-capabilities',
    'config-file',
    'config-json',
    'id',
    'host-tools',
    'yes',
    'config',
    'bin',
    'env',
    'allow-scripts',
  ] as const;
  // configure takes the settings flags of install and update, and none of the others.
  const isSettingsFlag = (flag: string) => (SETTINGS_FLAGS as readonly string[]).includes(flag);
  if (action !== 'install' && action !== 'update') {
    const stray = installFlags.find(
      (flag) =>
        values[flag] !== undefined &&
        !(action === 'inspect' && flag === 'bin') &&
        !(action === 'configure' && isSettingsFlag(flag)),
    );
    if (stray !== undefined) {
      throw usage(
        `--${stray} only applies to install and update${isSettingsFlag(stray) ? ' (and configure)' : ''}`,
      );
    }
  }
  if (values.json === true && action !== 'list' && action !== 'inspect' && action !== 'configure') {
    throw usage('--json only applies to list, inspect and configure');
  }
  if (action !== 'pack' && values.output !== undefined) {
    throw usage('--output only applies to pack');
  }
  if (action !== 'uninstall' && values.purge !== undefined) {
    throw usage('--purge only applies to uninstall');
  }
  const store = new PluginStore({ clatHome: resolveClatHome(io.env, io.cwd).dir });

  switch (action) {
    case 'new': {
      const [kind, name, target, ...extra] = positionals;
      if (kind === undefined) throw usage(`new needs a kind: ${SCAFFOLD_KINDS.join(', ')}`);
      if (!isScaffoldKind(kind)) {
        throw usage(`new: unknown kind ${JSON.stringify(kind)}; use ${SCAFFOLD_KINDS.join(', ')}`);
      }
      if (name === undefined) throw usage('new needs a plugin name');
      if (extra.length > 0) throw usage(`unexpected argument ${JSON.stringify(extra[0])}`);
      const result = await writeScaffold(kind, name, resolve(io.cwd, target ?? name));
      io.stdout.write(
        `Created ${kind === 'mcp' ? 'an' : 'a'} ${kind} plugin in ${result.dir} (${result.files.length} files). Next:\n  cd ${result.dir}\n  npm install && npm run build && npm test\n  clat plugin install . --accept-capabilities\nIts tool is ${result.tool}; the README has the rest${kind === 'mcp' ? '' : ', and what to do while npm cannot find the @clat/ packages (they are not on the public npm registry yet)'}.\n`,
      );
      return 0;
    }
    case 'inspect': {
      const { inspected, mcpb, installed } = await inspectSource(
        store,
        one(positionals, 'a package, or an installed id'),
        io,
        values.bin,
        (other) => withSourceReplaced(action, rest, other),
      );
      if (values.json === true) {
        io.stdout.write(jsonOutput(describeInspected(inspected, mcpb), 'clat plugin inspect'));
        return 0;
      }
      if (installed !== undefined) {
        io.stdout.write(`Installed, its active version (${installed}):\n`);
      }
      io.stdout.write(formatInspected(inspected) + formatBundleExtras(inspected, mcpb));
      return 0;
    }
    case 'install':
    case 'update': {
      const source = one(
        positionals,
        `a package ${action === 'update' ? 'id or source' : 'source'} (directory, .clatpkg, .wasm, npm:<name> or .mcpb)`,
      );
      const flags: InstallFlags = { ...values };
      if (server !== undefined) flags.args = server;
      const result =
        action === 'install'
          ? await installFrom(store, source, flags, io, (other) =>
              withSourceReplaced(action, rest, other),
            )
          : await updateFrom(store, source, flags, io);
      if (result.unchanged === true) {
        io.stdout.write(
          `${result.id} is already at ${sanitizeTerminalLine(result.version)}, the newest version its range allows\n`,
        );
        return 0;
      }
      const named = `${result.id} ${sanitizeTerminalLine(result.version)}`;
      const tree = `tree ${result.treeSha256.slice(0, 12)}`;
      const again = result.reinstall;
      if (again !== undefined && !again.restored && !again.settingsChanged) {
        io.stdout.write(
          `${named} is already installed with the same content and settings (${tree}); nothing changed\n`,
        );
        return 0;
      }
      if (again === undefined) {
        const previous = result.previousVersion;
        // An update to an older version says so (semver order; free-text versions cannot tell).
        if (previous !== undefined && versionChange(previous, result.version) === 'downgrade') {
          io.stdout.write(
            `Downgraded ${result.id} to ${sanitizeTerminalLine(result.version)} from ${sanitizeTerminalLine(previous)} (${tree})\n`,
          );
        } else if (previous === result.version) {
          // Rebuilt without a version bump: "Updated 0.1.0 … Rollback: 0.1.0" read as no change.
          io.stdout.write(
            `Updated ${named} to new content under the same version (${tree}); the rollback is the content before it. Raising "version" in clat-plugin.json tells them apart\n`,
          );
        } else {
          io.stdout.write(`${action === 'install' ? 'Installed' : 'Updated'} ${named} (${tree})\n`);
        }
        if (result.replaced !== undefined) {
          io.stdout.write(
            `It replaced ${JSON.stringify(sanitizeTerminalLine(result.replaced.name))} (${result.replaced.runtime}), a package of another name with the same id; "clat plugin rollback ${result.id}" brings it back\n`,
          );
        }
      } else {
        // The same bytes again: say what it did, not "Updated" as if a new version came.
        const did = [
          ...(again.restored ? ['restored its changed files'] : []),
          ...(again.settingsChanged ? ['applied the new settings'] : []),
        ];
        io.stdout.write(`${named} is already installed (${tree}); ${did.join(' and ')}\n`);
        if (again.kept !== undefined) {
          io.stdout.write(
            `Files its server had added were moved to ${sanitizeTerminalLine(again.kept)}\n`,
          );
        }
      }
      if (result.granted.length > 0) {
        io.stdout.write(
          `Granted capabilities: ${sanitizeTerminalLine(result.granted.join(', '))}\n`,
        );
      }
      if (result.rollbackVersion !== undefined) {
        io.stdout.write(`Rollback: ${sanitizeTerminalLine(result.rollbackVersion)}\n`);
      }
      if (!result.manifest.capabilities.tools) {
        // Not an error (a package may bring only prompts), but its tools would vanish silently.
        io.stdout.write(
          `${result.id} does not declare capability "tools": CLAT offers none of its tools (a package with tools sets "capabilities": {"tools": true} in clat-plugin.json)\n`,
        );
      }
      const exposed = sensitiveArgKeys(result.manifest);
      if (exposed.length > 0) io.stdout.write(`Note: ${sensitiveArgsNote(exposed)}\n`);
      for (const note of result.envNotes ?? []) io.stdout.write(`${sanitizeTerminalLine(note)}\n`);
      if (result.resolvedPaths !== undefined) {
        io.stdout.write(
          `Relative paths were made absolute, since its server runs in its package directory: ${result.resolvedPaths.map((pair) => sanitizeTerminalLine(pair)).join(', ')}\n`,
        );
      }
      for (const note of exposedArgumentNotes(flags.args ?? [], environmentNames)) {
        io.stdout.write(`${note}\n`);
      }
      const home = resolveClatHome(io.env, io.cwd);
      const entries = await existingServerNames(home.mcpFile).catch(() => new Set<string>());
      if (entries.has(result.id)) {
        // mcp.json entries come first: the package would be listed but never started.
        io.stdout.write(
          `The entry ${JSON.stringify(result.id)} of ${home.mcpFile} takes its place: CLAT starts that entry instead while it exists ("clat mcp remove ${shellWord(result.id)}" lets the plugin start)\n`,
        );
      }
      io.stdout.write('Restart CLAT to apply.\n');
      return 0;
    }
    case 'configure': {
      const id = one(positionals, 'a plugin id');
      const flags: InstallFlags & { json?: boolean } = { ...values };
      if (values.json === true && givesSettings(flags)) {
        throw usage('--json only applies to configure without new settings (it lists them)');
      }
      return configurePlugin(store, id, flags, io);
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
    case 'roots': {
      const [id, setting, ...extra] = positionals;
      if (id === undefined || (setting !== 'on' && setting !== 'off') || extra.length > 0) {
        throw usage('roots takes a plugin id and on or off: clat plugin roots <id> on|off');
      }
      await store.setRoots(id, setting === 'on');
      io.stdout.write(
        setting === 'on'
          ? `${id}'s server is offered the project root as an MCP root again. Restart CLAT to apply.\n`
          : `${id}'s server is no longer offered the project root as an MCP root; it keeps the directories its arguments name. Restart CLAT to apply.\n`,
      );
      return 0;
    }
    case 'rollback': {
      const result = await store.rollback(one(positionals, 'a plugin id'));
      io.stdout.write(
        `Rolled back ${result.id} to ${sanitizeTerminalLine(result.version)} (rollback is now ${sanitizeTerminalLine(result.rollbackVersion ?? '')}). Restart CLAT to apply.\n`,
      );
      return 0;
    }
    case 'repair': {
      const result = await store.repair(one(positionals, 'a plugin id'));
      const version = sanitizeTerminalLine(result.version);
      if (result.repaired.length === 0) {
        io.stdout.write(`${result.id} ${version} is intact; nothing to repair.\n`);
        return 0;
      }
      for (const line of result.repaired) {
        io.stdout.write(`Repaired ${sanitizeTerminalLine(line)}\n`);
      }
      io.stdout.write(`${result.id} ${version} is restored. Restart CLAT to apply.\n`);
      return 0;
    }
    case 'uninstall': {
      const target = one(positionals, 'a plugin id');
      const { id, installed } = await uninstallTarget(store, target, io.cwd);
      const home = resolveClatHome(io.env, io.cwd).dir;
      const data = pluginDataDir(home, id);
      // --purge of a package already uninstalled removes the data its uninstall kept.
      if (!installed && values.purge === true && (await removePluginData(home, id))) {
        io.stdout.write(`Removed the data of ${id} (${data})\n`);
        return 0;
      }
      const { cleanupError } = await store.uninstall(id);
      io.stdout.write(`Uninstalled ${id}. Restart CLAT to apply.\n`);
      if (cleanupError !== undefined) {
        io.stderr.write(
          `clat: note: could not remove all bytes of ${sanitizeTerminalLine(id)}: ${sanitizeTerminalLine(String(cleanupError))}\n`,
        );
      }
      if (values.purge === true) {
        if (await removePluginData(home, id)) io.stdout.write(`Removed its data (${data})\n`);
      } else if (await hasEntries(data)) {
        // Kept on purpose (a reinstall finds its notes, its memory), but never silently.
        io.stdout.write(
          `Its data in ${data} is kept for a reinstall; "clat plugin uninstall ${shellWord(id)} --purge" removes it\n`,
        );
      } else {
        // An empty one (its server never wrote there) holds nothing to keep: not left behind.
        await rmdir(data).catch(() => undefined);
      }
      return 0;
    }
    case 'list': {
      if (positionals.length > 0) throw usage('list takes no arguments');
      const rows = await store.list();
      if (values.json === true) io.stdout.write(jsonOutput(rows, 'clat plugin list'));
      else io.stdout.write(formatPluginTable(rows));
      return 0;
    }
    case 'pack': {
      const dir = await packageDirOf(resolve(io.cwd, one(positionals, 'a package directory')));
      // Packing is where an author's version is checked (installed packages keep free text), and
      // before the digest is written: a refused pack leaves the manifest as it was.
      await assertSemverVersion(join(dir, MANIFEST_FILE));
      const stamp = await stampEntryDigest(dir);
      io.stdout.write(
        `${stamp.changed ? 'Wrote' : 'Checked'} runtime.sha256 ${stamp.sha256} (${stamp.entry}) in ${stamp.manifestPath}\n`,
      );
      const inspected = await inspectPackage(dir);
      if (values.output === undefined) {
        // The next command for this id: install, or update when a version of it is installed.
        const { id, version } = inspected.manifest;
        const installed = (await store.readRegistry().catch(() => undefined))?.packages[id];
        const named = `${id} ${sanitizeTerminalLine(version)}`;
        io.stdout.write(
          installed === undefined
            ? `${named} is ready: clat plugin install ${shellWord(dir)}\n`
            : installed.active.artifact === inspected.tree.treeSha256
              ? `${named} is ready, and installed with this content\n`
              : `${named} is ready; ${id} is installed, so: clat plugin update ${shellWord(dir)}\n`,
        );
        return 0;
      }
      const result = await packPackage(dir, resolve(io.cwd, values.output));
      io.stdout.write(
        `Packed ${result.files} files (${result.bytes} bytes) into ${result.output}\nsha256 ${result.sha256}\ntree   ${result.treeSha256}\n`,
      );
      return 0;
    }
    case undefined:
      throw usage('expected an action');
    default: {
      const instead = foreignCommand('clat plugin', action);
      if (instead !== undefined) {
        throw new CliError(CliErrorCode.CLI_USAGE, `clat plugin ${action}: ${instead}`);
      }
      const meant = Object.hasOwn(ACTION_ALIASES, action) ? ACTION_ALIASES[action] : undefined;
      throw usage(
        `unknown action ${JSON.stringify(action)}${meant === undefined ? '' : `; did you mean "${meant}"?`}`,
      );
    }
  }
}

/**
 * Throws MANIFEST_INVALID naming `manifestPath` when its `version` is a string that is no semantic
 * version; anything else about the manifest is left for the inspection to name.
 */
async function assertSemverVersion(manifestPath: string): Promise<void> {
  let version: unknown;
  try {
    version = (JSON.parse(await readFile(manifestPath, 'utf8')) as { version?: unknown } | null)
      ?.version;
  } catch {
    return;
  }
  if (typeof version !== 'string') return;
  const problem = semverProblem(version);
  if (problem === undefined) return;
  throw new PackagingError(
    'MANIFEST_INVALID',
    `${manifestPath}: version: ${sanitizeTerminalLine(JSON.stringify(version))} ${problem}`,
    { file: manifestPath },
  );
}

/**
 * A manifest error with a did-you-mean for each unknown field the schema has a close name for
 * (`"capabilites"`: did you mean `"capabilities"`?), as mcp.json's errors have.
 */
function withFieldHints(error: PackagingError): PackagingError {
  const issues = (error.data as { issues?: ConfigIssue[] } | undefined)?.issues;
  if (error.code !== 'MANIFEST_INVALID' || issues === undefined) return error;
  const hints = issues.map(fieldHints).join('');
  if (hints === '') return error;
  return new PackagingError(error.code, `${error.message}${hints}`, {
    data: { issues },
    cause: error,
    ...(error.file === undefined ? {} : { file: error.file }),
  });
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
        io.stderr.write(errorLine(withFieldHints(error)));
        return error.code === 'CAPABILITY_EXPANSION' ? EXIT_CAPABILITIES : 1;
      }
      // So are file-system refusals (read-only or foreign-owned CLAT home, full disk).
      const code = (error as NodeJS.ErrnoException | undefined)?.code;
      if (error instanceof Error && typeof code === 'string' && /^E[A-Z]+$/.test(code)) {
        const said = fileErrorText(error) ?? sanitizeTerminalText(error.message);
        io.stderr.write(`clat: plugin ${sanitizeTerminalLine(argv[0] ?? '')}: ${said}\n`);
        return 1;
      }
      throw error;
    }
  },
};
