/**
 * `clat plugin install|update` from every kind of source: a package directory or `.clatpkg`, an
 * `npm:` spec (npm resolves, the manifest is generated) and MCPB bundles; terminal confirmation
 * of a tools-only request, `--config key=value` and prompts for missing settings.
 * @module
 */
import { lstat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { environmentValue } from '@clat/adapter-mcp';
import {
  type JsonValue,
  MANIFEST_FILE,
  PLUGIN_ID_PATTERN,
  type PluginUserConfigField,
  sanitizeTerminalLine,
  shellWord,
} from '@clat/kernel';
import {
  type ActivationResult,
  type ArtifactSource,
  activeArtifact,
  type InstallOptions,
  isMcpbSource,
  isPackagingError,
  NPM_SPEC_PREFIX,
  type PackageRecord,
  PackagingError,
  type PluginStore,
  parseConfigJson,
  parseNpmSpec,
  type Registry,
  readConfigFile,
  requiredEnvironment,
  SIGNATURE_FILE,
  stageMcpbBundle,
  stageNpmPackage,
} from '@clat/packaging';
import type { CommandIO } from '../command.js';
import { CliError, CliErrorCode } from '../errors.js';
import { flagPairs, keysTypedAsValues } from '../flag-pairs.js';
import { askLine, askSecretLine, isTty, isYes } from '../ui/line-prompt.js';
import { isComponentFile, packageFromComponent } from './plugin-component.js';
import { packageDirOf } from './plugin-project.js';
import { absolutePathWords, rootsNote } from './server-args.js';

export interface InstallFlags {
  'accept-capabilities'?: boolean;
  yes?: boolean;
  'config-file'?: string;
  'config-json'?: string;
  config?: string[];
  bin?: string;
  'allow-scripts'?: boolean;
  env?: string[];
  id?: string;
  'host-tools'?: string;
  /** npm: the server's own arguments, the words after `--` (`[]` removes them on update). */
  args?: string[];
}

/** The flags that give a package's settings: install's, update's and configure's. */
export const SETTINGS_FLAGS = ['config', 'config-file', 'config-json'] as const;

/** Whether any flag that gives settings was typed. */
export function givesSettings(values: InstallFlags): boolean {
  return SETTINGS_FLAGS.some((flag) => values[flag] !== undefined);
}

/** Whether the flags give settings and nothing else an update would change. */
function settingsOnly(values: InstallFlags): boolean {
  const other =
    values.bin !== undefined ||
    values.env !== undefined ||
    values.args !== undefined ||
    values['host-tools'] !== undefined ||
    values['allow-scripts'] !== undefined;
  return givesSettings(values) && !other;
}

/** A usage error of `clat plugin`, pointing at its help. */
export function usage(message: string): CliError {
  return new CliError(CliErrorCode.CLI_USAGE, `clat plugin: ${message}; see "clat plugin --help"`);
}

/** `--env NAME=value` and `--config key=value`, as typed (no trimming: values are the package's). */
function pairs(values: string[] | undefined, flag: 'env' | 'config'): Record<string, string> {
  return flagPairs(values, {
    flag: `--${flag}`,
    separator: '=',
    shape: flag === 'env' ? 'NAME=value' : 'key=value',
    trim: false,
    error: usage,
  });
}

/**
 * An update's environment: the install's, with each `--env NAME=value` set and each `NAME=` (no
 * value) removed, so a key can be added or fixed in place: the old version stays the rollback.
 */
function updatedEnv(
  recorded: Record<string, string> | undefined,
  values: string[] | undefined,
): Record<string, string> {
  const env: Record<string, string> = { ...recorded };
  for (const [name, value] of Object.entries(pairs(values, 'env'))) {
    if (value === '') delete env[name];
    else env[name] = value;
  }
  return env;
}

/** Where the active version of an installed package came from (npm only; local ones have none). */
function activeSource(record: PackageRecord): ArtifactSource | undefined {
  return activeArtifact(record).source;
}

function interactive(io: CommandIO): boolean {
  return isTty(io.stdin) && isTty(io.stdout);
}

/** Store options from flags; on a terminal, confirmation and setting prompts are wired in. */
export async function installOptions(values: InstallFlags, io: CommandIO): Promise<InstallOptions> {
  // Checked here, before a generated manifest would blame a clat-plugin.json nobody wrote.
  if (values.id !== undefined && !PLUGIN_ID_PATTERN.test(values.id)) {
    throw usage(
      `--id ${JSON.stringify(values.id)} must be a lowercase id: letters a-z, digits, ".", "_" and "-", starting with a letter or digit (at most 128)`,
    );
  }
  const given = ['config-file', 'config-json'].filter(
    (flag) => values[flag as keyof InstallFlags] !== undefined,
  );
  if (given.length > 1) throw usage('use either --config-file or --config-json, not both');
  let config: JsonValue | undefined;
  if (values['config-file'] !== undefined) {
    config = await readConfigFile(resolve(io.cwd, values['config-file']));
  } else if (values['config-json'] !== undefined) {
    config = parseConfigJson(values['config-json']);
  }
  const options: InstallOptions = {
    acceptCapabilities: values['accept-capabilities'] === true,
    yes: values.yes === true,
    configValues: pairs(values.config, 'config'),
  };
  if (config !== undefined) options.config = config;
  if (interactive(io)) {
    options.confirm = async (request) => {
      io.stdout.write(
        `${sanitizeTerminalLine(request.id)} ${sanitizeTerminalLine(request.version)} asks for: ${request.capabilities.join(', ')}\n`,
      );
      return isYes(await askLine(io.stdin, io.stdout, 'Install and let it provide tools? [y/N] '));
    };
    options.askConfig = async (key: string, field: PluginUserConfigField) => {
      const label = sanitizeTerminalLine(field.title);
      const hint =
        field.description === undefined ? '' : ` (${sanitizeTerminalLine(field.description)})`;
      const question = `${label}${hint} [${key}]${field.sensitive ? ' (sensitive, not shown)' : ''}: `;
      return field.sensitive
        ? askSecretLine(io.stdin, io.stdout, question)
        : askLine(io.stdin, io.stdout, question);
    };
  }
  return options;
}

/** Asks which bin to run on a terminal; undefined headless (the error says to use --bin). */
function binChooser(io: CommandIO) {
  if (!interactive(io)) return undefined;
  return async (bins: string[]) => {
    io.stdout.write(
      `The package has several programs: ${bins.map((b) => sanitizeTerminalLine(b)).join(', ')}\n`,
    );
    const answer = await askLine(io.stdin, io.stdout, 'Which one is the MCP server? ');
    return answer === '' ? undefined : answer;
  };
}

async function activateNpm(
  store: PluginStore,
  mode: 'install' | 'update',
  spec: { name: string; range: string },
  values: InstallFlags,
  io: CommandIO,
  options: InstallOptions,
  previous?: ArtifactSource,
): Promise<Activated> {
  // An npm server's generated manifest always asks for capability tools: without a terminal to
  // ask on and without --yes, say so now, not after npm fetched the package and its tree.
  if (
    mode === 'install' &&
    options.yes !== true &&
    options.acceptCapabilities !== true &&
    options.confirm === undefined
  ) {
    throw new PackagingError(
      'CAPABILITY_EXPANSION',
      `${NPM_SPEC_PREFIX}${spec.name} would provide tools (capability tools), and there is no terminal to ask on; rerun with --yes to grant it`,
      { data: { capabilities: ['tools'] } },
    );
  }
  const env =
    previous === undefined ? pairs(values.env, 'env') : updatedEnv(previous.env, values.env);
  // Given args replace the recorded ones; relative paths are made absolute, since the server
  // runs in its package directory.
  const given = values.args === undefined ? undefined : absolutePathWords(values.args, io.cwd);
  const args = given?.words ?? previous?.args ?? [];
  // npm takes seconds (minutes on a slow registry) before anything else is said: on stderr, so
  // stdout keeps only the result.
  io.stderr.write(
    `Fetching ${sanitizeTerminalLine(`${spec.name}@${spec.range}`)} with npm (its dependencies too)…\n`,
  );
  const staged = await stageNpmPackage({
    spec,
    ...(values.id === undefined ? {} : { id: values.id }),
    ...((values.bin ?? previous?.bin) === undefined
      ? {}
      : { bin: (values.bin ?? previous?.bin) as string }),
    ...(interactive(io)
      ? { chooseBin: binChooser(io) as NonNullable<ReturnType<typeof binChooser>> }
      : {}),
    allowScripts: values['allow-scripts'] === true || previous?.allowScripts === true,
    env,
    args,
    processEnv: io.env,
  });
  try {
    const result: Activated = await (mode === 'install'
      ? store.install(staged.dir, { ...options, source: staged.source })
      : store.update(staged.dir, { ...options, source: staged.source }));
    if (given !== undefined && given.resolved.length > 0) result.resolvedPaths = given.resolved;
    const notes = envNotes(env, args, io.env);
    // A server given directories drops them for the project root it is offered, unless off.
    const roots = await rootsNote(args, `clat plugin roots ${shellWord(result.id)} off`);
    if (roots !== undefined && !(await rootsOff(store, result.id))) notes.push(roots);
    if (notes.length > 0) result.envNotes = notes;
    return result;
  } finally {
    await staged.cleanup();
  }
}

/** Whether the package's server is already kept from the project root as an MCP root. */
async function rootsOff(store: PluginStore, id: string): Promise<boolean> {
  const registry = await store.readRegistry().catch(() => undefined);
  return registry?.packages[id]?.roots === false;
}

type Activated = ActivationResult & {
  unchanged?: boolean;
  /** Relative paths among the server arguments, made absolute (`word → absolute`). */
  resolvedPaths?: string[];
  /**
   * What an npm server's `--env` values mean for where a key lives (see {@link envNotes}), and
   * whether the project root offered as a root replaces the directories its arguments name.
   */
  envNotes?: string[];
};

/**
 * Notes on an npm server's environment: a key typed as a value (kept in the plugin store's
 * owner-only files) and how to keep it in the environment instead; a `${NAME}` its env or
 * arguments read that is not set here (the server is not started until it is). Names only:
 * values are never shown.
 */
function envNotes(
  env: Record<string, string>,
  args: readonly string[],
  here: NodeJS.ProcessEnv,
): string[] {
  const typed = keysTypedAsValues(env);
  const unset = new Set<string>();
  for (const value of [...Object.values(env), ...args]) {
    for (const ref of requiredEnvironment(value)) {
      // The launch's own rule: it refuses only an unset variable, an empty one is a value.
      if (environmentValue(here, ref, undefined) === undefined) unset.add(ref);
    }
  }
  const notes: string[] = [];
  if (typed.length > 0) {
    notes.push(
      `Note: the value${typed.length === 1 ? '' : 's'} of --env ${typed.join(', ')} ${typed.length === 1 ? 'looks' : 'look'} like a key and ${typed.length === 1 ? 'is' : 'are'} kept in the plugin store (owner-only files); to read ${typed.length === 1 ? 'it' : 'them'} from the environment CLAT starts in instead, give --env '${typed[0]}=\${${typed[0]}}' (in single quotes, so the shell leaves it)`,
    );
  }
  if (unset.size > 0) {
    const names = [...unset].join(', ');
    notes.push(
      `Note: ${names} ${unset.size === 1 ? 'is' : 'are'} not set here; the server reads ${unset.size === 1 ? 'it' : 'them'} from the environment CLAT starts in, and is not started while ${unset.size === 1 ? 'it is' : 'one is'} unset`,
    );
  }
  return notes;
}

/** Installs or updates from a local path: MCPB bundle, bare `.wasm`, directory or `.clatpkg`. */
async function activatePath(
  store: PluginStore,
  mode: 'install' | 'update',
  path: string,
  values: InstallFlags,
  options: InstallOptions,
): Promise<Activated> {
  for (const flag of ['bin', 'allow-scripts', 'env'] as const) {
    if (values[flag] !== undefined) throw usage(`--${flag} only applies to npm: sources`);
  }
  if (values.args !== undefined) {
    throw usage(
      'arguments after -- only apply to npm: sources (a package sets its server\'s in "runtime.args" of its clat-plugin.json)',
    );
  }
  const run = (dir: string) =>
    mode === 'install' ? store.install(dir, options) : store.update(dir, options);
  path = await packageDirOf(path);
  const component = isComponentFile(path);
  if (!component && values['host-tools'] !== undefined) {
    throw usage('--host-tools only applies to a .wasm component');
  }
  let staged: { dir: string; cleanup(): Promise<void> } | undefined;
  if (component) {
    staged = await packageFromComponent(path, {
      id: values.id,
      hostTools: values['host-tools']?.split(',').map((tool) => tool.trim()),
    });
  } else if (await isMcpbSource(path)) {
    staged = await stageMcpbBundle(path, values.id === undefined ? {} : { id: values.id });
  } else if (values.id !== undefined) {
    throw usage('--id only applies to npm:, MCPB and .wasm sources');
  }
  if (staged === undefined) return digestHinted(path, options, () => run(path));
  try {
    return await run(staged.dir);
  } finally {
    await staged.cleanup();
  }
}

/**
 * A package directory whose manifest lacks the entry's digest, or has a stale one (an author's
 * sources, a build not rerun): the error names the manifest by its full path and the command
 * that writes the digest, `clat plugin pack` of the same source.
 */
async function digestHinted<T>(
  dir: string,
  options: InstallOptions,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const prefix = `${MANIFEST_FILE}: runtime.sha256`;
    if (!isPackagingError(error) || !error.message.startsWith(prefix)) throw error;
    if (!(await lstat(dir).catch(() => undefined))?.isDirectory()) throw error;
    // pack refuses a signed package (its signature would break): no hint that would refuse.
    if (await lstat(join(dir, SIGNATURE_FILE)).catch(() => undefined)) throw error;
    const source = options.sourceArgument ?? shellWord(dir);
    throw new PackagingError(
      error.code,
      `${join(dir, MANIFEST_FILE)}${error.message.slice(MANIFEST_FILE.length)}; run "clat plugin pack ${source}" to write the entry's digest (a plugin project's build does it too)`,
      { file: join(dir, MANIFEST_FILE), cause: error },
    );
  }
}

/** `clat plugin install <source>`: directory, `.clatpkg`, `.wasm`, `npm:<spec>` or MCPB bundle. */
export async function installFrom(
  store: PluginStore,
  source: string,
  values: InstallFlags,
  io: CommandIO,
  /** The command line as typed with another source in its place (for a hint that retypes it). */
  retyped: (source: string) => string = (other) => `clat plugin install ${shellWord(other)}`,
): Promise<Activated> {
  const options = { ...(await installOptions(values, io)), sourceArgument: shellWord(source) };
  if (source.startsWith(NPM_SPEC_PREFIX)) {
    return activateNpm(store, 'install', parseNpmSpec(source), values, io, options);
  }
  const path = resolve(io.cwd, source);
  if ((await lstat(path).catch(() => undefined)) === undefined) {
    const instead = notAPathHint(source, retyped);
    if (instead !== undefined) {
      throw usage(`${JSON.stringify(source)} is no file or directory in ${io.cwd}; ${instead}`);
    }
  }
  return activatePath(store, 'install', path, values, options);
}

/** Where a source ends that names a downloadable package file. */
const PACKAGE_FILE = /\.(?:mcpb|dxt|clatpkg|wasm)$/i;

/**
 * What a source that is no local path most likely meant, as other clients take sources: an npm
 * package written without `npm:` (`@modelcontextprotocol/server-memory`), or a URL (Gemini CLI's
 * `extensions install https://github.com/…`, a bundle's download link). Undefined for anything
 * else, which gets the store's own "does not exist".
 */
export function notAPathHint(
  source: string,
  retyped: (source: string) => string,
): string | undefined {
  if (/^(?:[a-z][a-z0-9+.-]*:\/\/|github:|gitlab:|git@)/i.test(source)) {
    const file = PACKAGE_FILE.test(source) ? source.slice(source.lastIndexOf('/') + 1) : undefined;
    return file === undefined
      ? `CLAT installs from npm (npm:<name>) and from local files, not from URLs or git repositories: a server published to npm installs with clat plugin install npm:<its name>`
      : `CLAT installs from local files, not URLs: download it, then clat plugin install ./${file}`;
  }
  try {
    parseNpmSpec(source);
  } catch {
    return undefined;
  }
  return `an npm package is named with npm: in front: ${retyped(`${NPM_SPEC_PREFIX}${source}`)}`;
}

/**
 * `clat plugin update <id|source>`: an installed npm package moves to the newest version matching
 * its recorded range; a source replaces the package built from it.
 */
export async function updateFrom(
  store: PluginStore,
  target: string,
  values: InstallFlags,
  io: CommandIO,
): Promise<Activated> {
  const options = { ...(await installOptions(values, io)), sourceArgument: shellWord(target) };
  if (target.startsWith(NPM_SPEC_PREFIX)) {
    const spec = parseNpmSpec(target);
    const registry = await store.readRegistry();
    // The package installed from this npm name, whatever id it got (--id, or an older default).
    const id = values.id ?? installedIdOf(registry, spec.name);
    const record = id === undefined ? undefined : registry.packages[id];
    const source = record === undefined ? undefined : activeSource(record);
    if (id !== undefined && record !== undefined && source?.name === spec.name) {
      // `npm:<name>` alone follows the recorded range, like the id; `npm:<name>@<range>` moves it.
      const explicit = target !== `${NPM_SPEC_PREFIX}${spec.name}`;
      return updateRecorded(
        store,
        id,
        record.active.artifact,
        source,
        explicit ? spec.range : source.range,
        values,
        io,
        options,
      );
    }
    return activateNpm(store, 'update', spec, values, io, options);
  }
  // A path that exists wins over a same-named package id.
  const asPath = await lstat(resolve(io.cwd, target)).catch(() => undefined);
  const registry = await store.readRegistry();
  const record = asPath === undefined ? registry.packages[target] : undefined;
  if (record !== undefined) {
    const source = activeSource(record);
    if (source === undefined) {
      throw new PackagingError(
        'PACKAGE_STATE',
        `${target} was installed from a local directory or file, whose path CLAT does not record; run "clat plugin update <path>" with that directory, .clatpkg, .mcpb or .wasm file (in a plugin project: "clat plugin update .")${settingsOnly(values) ? `, or, to change only its settings, "clat plugin configure ${shellWord(target)}" with the same --config flags` : ''}`,
      );
    }
    return updateRecorded(
      store,
      target,
      record.active.artifact,
      source,
      source.range,
      values,
      io,
      options,
    );
  }
  if (asPath === undefined && !/[/\\.]/.test(target)) {
    // A word that is no path and no installed id: most likely a mistyped id.
    const ids = Object.keys(registry.packages);
    throw new PackagingError(
      'PACKAGE_STATE',
      `${target} is neither an installed package (${ids.length === 0 ? 'none is installed' : `installed: ${ids.join(', ')}`}) nor a file or directory here`,
    );
  }
  return activatePath(store, 'update', resolve(io.cwd, target), values, options);
}

/**
 * Updates installed npm package `id` along `range`, keeping the bin (unless `--bin` names
 * another), the environment (changed by `--env`) and the scripts choice it was installed with.
 */
async function updateRecorded(
  store: PluginStore,
  id: string,
  active: string,
  source: ArtifactSource,
  range: string,
  values: InstallFlags,
  io: CommandIO,
  options: InstallOptions,
): Promise<Activated> {
  const result = await activateNpm(
    store,
    'update',
    { name: source.name, range },
    { ...values, id },
    io,
    // Its env, args and bin are the installed version's, read before npm ran: a change another
    // process made meanwhile is refused under the lease, not silently undone.
    { ...options, basedOn: active },
    source,
  );
  return { ...result, unchanged: result.treeSha256 === active };
}

/**
 * The id of the one installed package whose active version came from npm package `name`;
 * undefined when none did (the default id applies) or several did (`--id` must say which).
 */
function installedIdOf(registry: Registry, name: string): string | undefined {
  const ids = Object.entries(registry.packages)
    .filter(([, record]) => {
      const source = activeSource(record);
      return source?.kind === 'npm' && source.name === name;
    })
    .map(([id]) => id);
  if (ids.length > 1) {
    throw usage(
      `${name} is installed as ${ids.join(' and ')}; name the one to update: clat plugin update ${ids[0]}`,
    );
  }
  return ids[0];
}
