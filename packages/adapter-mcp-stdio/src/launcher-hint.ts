/**
 * Why an `npx` server may not answer in time, and the command that fixes it. On a cold cache,
 * `npx -y <package>` downloads and installs the package before the server runs: often longer
 * than the handshake allows (3 s probe, 10 s initialize). Each attempt's process is killed
 * before npm finishes, so no later start gets further; the server never connects until the
 * package is installed once outside CLAT. `npm exec --yes --package=<p> -- node -e 0` installs
 * into the same npx cache entry (it is keyed by the package list) and exits. npm 11 locks that
 * entry while installing; an attempt stopped mid-install leaves the lock, which npm takes over
 * only once it is a minute old, so the hint says the command may wait that long.
 * @module
 */
import { basename } from 'node:path';

/** npx options that take a value (the next argument) and do not name the package to run. */
const VALUE_OPTIONS = new Set(['-c', '--call', '-w', '--workspace', '--userconfig', '--cache']);

/**
 * The packages an `npx` command line runs: each `--package`/`-p`, else its first positional
 * argument (`npx -y @scope/server@1 --flag` → `@scope/server@1`). Undefined when the command
 * is not npx or names nothing to install.
 */
export function npxPackages(command: string, args: readonly string[]): string[] | undefined {
  const name = basename(command).toLowerCase();
  if (name !== 'npx' && name !== 'npx.cmd') return undefined;
  const packages: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === '--') {
      const next = args[index + 1];
      if (packages.length === 0 && next !== undefined) packages.push(next);
      break;
    }
    if (arg === '-p' || arg === '--package') {
      const value = args[++index];
      if (value !== undefined) packages.push(value);
      continue;
    }
    if (arg.startsWith('--package=')) {
      packages.push(arg.slice('--package='.length));
      continue;
    }
    if (VALUE_OPTIONS.has(arg)) {
      index++;
      continue;
    }
    if (arg.startsWith('-')) continue;
    // The first positional is the command; it is the package only when no --package named one.
    if (packages.length === 0) packages.push(arg);
    break;
  }
  return packages.length > 0 ? packages : undefined;
}

/** `spec` as one shell word: bare when safe, else single-quoted (`'>=1.2'`). */
function shellWord(spec: string): string {
  return /^[\w@./:~^=+-]+$/.test(spec) ? spec : `'${spec.replaceAll("'", `'\\''`)}'`;
}

/** What installs an `npx` server's packages ahead of its start: npm's arguments, and the list. */
export interface NpxInstall {
  /** The packages npx runs ({@link npxPackages}). */
  packages: string[];
  /**
   * npm's arguments: `exec --yes --package=… -- node -e 0`, with the npm settings the npx line
   * gives (`--registry=…`, `--cache <dir>`) kept, so the install fills the same cache entry
   * (npx keys it by the package list) from the same registry, and exits without running them.
   */
  args: string[];
}

/** npm options that take a value and name where or how npm installs (kept in the install). */
const KEPT_VALUE_OPTIONS = new Set(['--cache', '--userconfig']);
/** npx's own options the install replaces (which packages, what runs, whether to ask). */
const REPLACED_OPTIONS = new Set([
  '-y',
  '--yes',
  '--no',
  '--no-yes',
  '-p',
  '--package',
  '-c',
  '--call',
]);

/** How to install what an `npx` command line runs; undefined for another command. */
export function npxInstall(command: string, args: readonly string[]): NpxInstall | undefined {
  const packages = npxPackages(command, args);
  if (packages === undefined) return undefined;
  const kept: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === '--' || !arg.startsWith('-')) break;
    if (REPLACED_OPTIONS.has(arg) || arg.startsWith('--package=') || arg.startsWith('--call=')) {
      if (arg === '-p' || arg === '--package' || arg === '-c' || arg === '--call') index++;
      continue;
    }
    if (VALUE_OPTIONS.has(arg)) {
      const value = args[++index];
      if (KEPT_VALUE_OPTIONS.has(arg) && value !== undefined) kept.push(arg, value);
      continue;
    }
    // `--registry=…`, `--prefer-offline` and the like are npm settings: the install takes them.
    kept.push(arg);
  }
  return {
    packages,
    args: [
      'exec',
      ...kept,
      '--yes',
      ...packages.map((spec) => `--package=${spec}`),
      '--',
      'node',
      '-e',
      '0',
    ],
  };
}

/** {@link npxInstall}'s npm arguments as one line for a POSIX shell: what a person runs. */
export function npxInstallCommand(install: NpxInstall): string {
  // `--package='srv@>=1 <2'`: the value quoted, the option name left as typed.
  const word = (arg: string) => {
    const option = /^(--[\w-]+=)(.*)$/s.exec(arg);
    return option === null ? shellWord(arg) : `${option[1]}${shellWord(option[2] as string)}`;
  };
  return `npm ${install.args.map(word).join(' ')}`;
}

/**
 * For a server that did not answer the handshake in time: the sentence that says npx may still
 * have been installing its package, with the command that installs it once. Undefined for any
 * other command.
 */
export function slowStartHint(
  command: string,
  args: readonly string[],
  hostName = 'CLAT',
): string | undefined {
  const install = npxInstall(command, args);
  if (install === undefined) return undefined;
  const { packages } = install;
  const line = npxInstallCommand(install);
  return `npx may still have been installing ${packages.join(', ')} (a first start downloads it, and each attempt is stopped at the handshake timeout before npm finishes); install it once with "${line}" (it may first wait up to a minute for the lock a stopped attempt left), then start ${hostName} again`;
}
