/**
 * `npm:<name>[@<version|range|tag>]` sources: npm itself resolves and fetches (the machine's npm
 * configuration and registry apply), dependencies are installed without dev dependencies and
 * without lifecycle scripts, and an `mcp-stdio` manifest that runs the chosen `bin` with the
 * current Node.js is generated into the staged tree.
 * @module
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cp,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import {
  MANIFEST_FILE,
  MANIFEST_LIMITS,
  PLUGIN_ID_PATTERN,
  type PluginManifestInput,
} from '@clat/kernel';
import { PackagingError } from './errors.js';
import type { ArtifactSource } from './registry.js';

export const NPM_SPEC_PREFIX = 'npm:';
/** npm package names (lowercase, optional scope, at most 214 characters). */
const NPM_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;
/** How long one npm command may run. */
const NPM_TIMEOUT_MS = 10 * 60_000;

export interface NpmSpec {
  name: string;
  /** Version, range or dist-tag; `latest` when omitted. */
  range: string;
}

/** Parses `npm:<name>[@<version|range|tag>]`. */
export function parseNpmSpec(spec: string): NpmSpec {
  const body = spec.startsWith(NPM_SPEC_PREFIX) ? spec.slice(NPM_SPEC_PREFIX.length) : spec;
  const at = body.indexOf('@', body.startsWith('@') ? 1 : 0);
  const name = at === -1 ? body : body.slice(0, at);
  const range = at === -1 ? 'latest' : body.slice(at + 1);
  if (!NPM_NAME.test(name) || name.length > 214) {
    throw new PackagingError(
      'NPM_FAILED',
      `${JSON.stringify(spec)} is not an npm package spec (npm:<name>[@<version|range|tag>])`,
    );
  }
  if (range === '' || /\s/.test(range) || range.length > 256) {
    throw new PackagingError(
      'NPM_FAILED',
      `${JSON.stringify(spec)} has an empty or invalid version`,
    );
  }
  return { name, range };
}

/** Words that say a package is an MCP server without saying which one. */
const GENERIC_NAME_WORDS = new Set(['mcp', 'server', 'servers', 'mcpserver']);

/**
 * The default package id for an npm name: the unscoped name, lowercased (`server-memory`). A
 * scoped name whose unscoped part only says "MCP server" (`@playwright/mcp`, `@sentry/mcp-server`)
 * keeps its scope in front (`playwright-mcp`): the id names the server in its tools' names
 * (`mcp_playwright_mcp_browser_click`), where `mcp` alone would tell a model and a person nothing.
 */
export function npmPackageId(name: string): string {
  const [scope, unscoped] = name.startsWith('@') ? name.slice(1).split('/', 2) : [undefined, name];
  const bare = (unscoped ?? name).toLowerCase();
  const generic = bare.split(/[-_.]/).every((word) => word === '' || GENERIC_NAME_WORDS.has(word));
  const id = (scope !== undefined && generic ? `${scope}-${bare}` : bare).replace(
    /[^a-z0-9._-]/g,
    '-',
  );
  return PLUGIN_ID_PATTERN.test(id)
    ? id
    : `npm-${createHash('sha256').update(name).digest('hex').slice(0, 12)}`;
}

/** A `${NAME}` or `${NAME:-default}` as mcp.json writes an environment reference. */
const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(:-[^}]*)?\}/g;

/** The store's own variables, which look like environment references but are not. */
function storeVariable(name: string): boolean {
  return name === 'CLAT_PLUGIN_DATA' || name === 'CLAT_PLUGIN_ROOT';
}

/** Each environment variable a typed value reads, and whether it has no default. */
function* environmentReads(value: string): Generator<{ name: string; required: boolean }> {
  for (const [, name, fallback] of value.matchAll(ENV_REFERENCE)) {
    if (name !== undefined && !storeVariable(name))
      yield { name, required: fallback === undefined };
  }
}

/**
 * Every environment variable a typed value reads, with a default or not (`TOKEN` of `${TOKEN}`,
 * `REGION` of `${REGION:-eu}`), but the store's own variables.
 */
export function environmentNames(value: string): string[] {
  return [...environmentReads(value)].map((read) => read.name);
}

/**
 * The environment variables a typed `--env` value reads without a default (`${TOKEN}`, not
 * `${REGION:-eu}`): the launch does not start the server while one is unset.
 */
export function requiredEnvironment(value: string): string[] {
  return [...environmentReads(value)].filter((read) => read.required).map((read) => read.name);
}

/**
 * The manifest form of what the person typed after `--env NAME=` or `--`: each `${NAME}` (but
 * the store's own `${CLAT_PLUGIN_DATA}` and `${CLAT_PLUGIN_ROOT}`) becomes `${env.NAME}`, which
 * the launch reads from CLAT's environment, so a key given as `'${TOKEN}'` is stored nowhere.
 * The recorded source keeps the typed form.
 */
export function environmentReferences(value: string): string {
  return value.replace(ENV_REFERENCE, (whole, name: string, fallback: string | undefined) =>
    storeVariable(name) ? whole : `\${env.${name}${fallback ?? ''}}`,
  );
}

export interface StageNpmOptions {
  spec: NpmSpec;
  /** Package id (default {@link npmPackageId}). */
  id?: string;
  /** The `bin` to run; required when the package has several and `chooseBin` is absent. */
  bin?: string;
  /** Asks which bin to run when there are several (a terminal prompt). */
  chooseBin?: (bins: string[]) => Promise<string | undefined>;
  /** Runs dependency lifecycle scripts (off by default). */
  allowScripts?: boolean;
  /**
   * Environment written into the generated manifest (`${CLAT_PLUGIN_DATA}`, `${config.*}`; a
   * `${NAME}` or `${NAME:-default}` is read from CLAT's environment at each launch, as mcp.json
   * reads it: see {@link environmentReferences}).
   */
  env?: Record<string, string>;
  /**
   * Arguments the server runs with, after its bin (`${CLAT_PLUGIN_DATA}`, `${config.*}` are
   * substituted at launch); at most `MANIFEST_LIMITS.args` of `argBytes` each.
   */
  args?: readonly string[];
  /** Environment npm runs with (its `npm_config_*` settings apply). */
  processEnv?: NodeJS.ProcessEnv;
  /** The npm executable (default `npm` on PATH). */
  npm?: string;
}

export interface StagedNpmPackage {
  /** A package directory ready for the store (manifest generated). */
  dir: string;
  source: ArtifactSource;
  cleanup(): Promise<void>;
}

function runNpm(
  args: string[],
  cwd: string,
  options: StageNpmOptions,
): Promise<{ stdout: string; stderr: string }> {
  const npm = options.npm ?? 'npm';
  return new Promise((resolvePromise, reject) => {
    execFile(
      npm,
      args,
      {
        cwd,
        env: options.processEnv ?? process.env,
        timeout: NPM_TIMEOUT_MS,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error === null) {
          resolvePromise({ stdout, stderr });
          return;
        }
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') {
          reject(
            new PackagingError(
              'NPM_FAILED',
              `${npm} was not found on PATH; install Node.js with npm`,
            ),
          );
          return;
        }
        // npm's own explanation: its `npm error` lines, without the log-file boilerplate.
        const lines = stderr
          .split('\n')
          .filter(
            (line) =>
              /^npm (error|ERR!)/.test(line) && !/A complete log|npm-debug|_logs/.test(line),
          )
          .map((line) => line.replace(/^npm (error|ERR!)\s*/, '').trim())
          .filter((line) => line !== '');
        const why = lines.slice(0, 3).join(' ') || `exit code ${String(error.code)}`;
        reject(
          new PackagingError(
            'NPM_FAILED',
            `npm ${args[0]} ${args[1] ?? ''} failed: ${why}`.replace(/\s+/g, ' '),
            {
              cause: error,
            },
          ),
        );
      },
    );
  });
}

/** Replaces symlinks inside `root` with copies of what they point to; refuses ones leaving it. */
async function resolveSymlinks(root: string, dir = root): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink()) {
      const target = await realpath(path).catch(() => undefined);
      const inside =
        target !== undefined && (target === root || target.startsWith(`${root}${sep}`));
      if (!inside) {
        throw new PackagingError(
          'TREE_SPECIAL_FILE',
          `${relative(root, path)} is a symlink that leaves the package${target === undefined ? ' (dangling)' : ` (to ${target})`}`,
          { file: relative(root, path) },
        );
      }
      await unlink(path);
      await cp(target, path, { recursive: true, dereference: true });
      if ((await lstat(path)).isDirectory()) await resolveSymlinks(root, path);
    } else if (entry.isDirectory()) {
      await resolveSymlinks(root, path);
    }
  }
}

function binEntries(pkg: { name: string; bin?: unknown }): Record<string, string> {
  if (typeof pkg.bin === 'string') return { [pkg.name.split('/').pop() ?? pkg.name]: pkg.bin };
  if (typeof pkg.bin === 'object' && pkg.bin !== null) {
    return Object.fromEntries(
      Object.entries(pkg.bin as Record<string, unknown>).filter(
        (pair): pair is [string, string] => typeof pair[1] === 'string',
      ),
    );
  }
  return {};
}

async function pickBin(
  name: string,
  bins: Record<string, string>,
  options: StageNpmOptions,
): Promise<string> {
  const names = Object.keys(bins).sort();
  if (names.length === 0) {
    throw new PackagingError(
      'NPM_FAILED',
      `${name} has no "bin" entry, so there is no server to run`,
    );
  }
  if (options.bin !== undefined) {
    if (!names.includes(options.bin)) {
      throw new PackagingError(
        'NPM_FAILED',
        `${name} has no bin ${JSON.stringify(options.bin)} (it has ${names.join(', ')}); choose one with --bin <name>`,
      );
    }
    return options.bin;
  }
  if (names.length === 1) return names[0] as string;
  const chosen = await options.chooseBin?.(names);
  if (chosen !== undefined && names.includes(chosen)) return chosen;
  throw new PackagingError(
    'NPM_FAILED',
    `${name} has several bins (${names.join(', ')}); choose one with --bin <name>`,
  );
}

/**
 * Resolves and installs an npm package into a fresh temporary directory (0700, outside the store
 * so a concurrent store recovery cannot wipe it) and generates its manifest.
 */
/**
 * The server arguments, checked against the manifest's limits before npm runs (the generated
 * manifest would otherwise fail after the fetch, naming a clat-plugin.json nobody wrote).
 */
function checkedArgs(args: readonly string[]): string[] {
  if (args.length > MANIFEST_LIMITS.args) {
    throw new PackagingError(
      'CONFIG_INVALID',
      `${args.length} server arguments are more than the ${MANIFEST_LIMITS.args} a package may have`,
    );
  }
  for (const [index, arg] of args.entries()) {
    if (Buffer.byteLength(arg) > MANIFEST_LIMITS.argBytes) {
      throw new PackagingError(
        'CONFIG_INVALID',
        `server argument ${index + 1} is longer than ${MANIFEST_LIMITS.argBytes} bytes`,
      );
    }
  }
  return [...args];
}

export async function stageNpmPackage(options: StageNpmOptions): Promise<StagedNpmPackage> {
  const { name, range } = options.spec;
  const args = checkedArgs(options.args ?? []);
  const temp = await mkdtemp(join(tmpdir(), 'clat-npm-'));
  const cleanup = () => rm(temp, { recursive: true, force: true });
  try {
    const packDir = join(temp, 'pack');
    await mkdir(packDir);
    // `npm pack` resolves the spec exactly as npm would and reports version and integrity.
    const packed = await runNpm(
      ['pack', `${name}@${range}`, '--json', '--ignore-scripts', '--pack-destination', packDir],
      temp,
      options,
    );
    const [info] = JSON.parse(packed.stdout) as {
      name: string;
      version: string;
      integrity: string;
    }[];
    if (info === undefined || info.name !== name) {
      throw new PackagingError('NPM_FAILED', `npm pack ${name}@${range} returned no package`);
    }
    const root = join(temp, 'package');
    await mkdir(root);
    await writeFile(
      join(root, 'package.json'),
      `${JSON.stringify({ name: 'clat-npm-package', private: true }, null, 2)}\n`,
    );
    const install = [
      'install',
      `${name}@${info.version}`,
      '--omit=dev',
      '--save-exact',
      '--no-audit',
      '--no-fund',
      '--no-bin-links',
      '--install-links=false',
    ];
    if (options.allowScripts !== true) install.push('--ignore-scripts');
    await runNpm(install, root, options);

    const lock = JSON.parse(await readFile(join(root, 'package-lock.json'), 'utf8')) as {
      packages?: Record<string, { version?: string; resolved?: string; integrity?: string }>;
    };
    const locked = lock.packages?.[`node_modules/${name}`];
    if (locked?.integrity !== info.integrity || locked.version !== info.version) {
      throw new PackagingError(
        'NPM_FAILED',
        `npm installed ${name}@${locked?.version ?? '?'} with integrity ${locked?.integrity ?? '?'}, but the registry published ${info.version} as ${info.integrity}`,
      );
    }
    const packageDir = join(root, 'node_modules', ...name.split('/'));
    const pkg = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
      description?: unknown;
      bin?: unknown;
    };
    const bins = binEntries(pkg);
    const bin = await pickBin(`${name}@${info.version}`, bins, options);
    const entryAbsolute = resolve(packageDir, bins[bin] as string);
    if (!entryAbsolute.startsWith(`${packageDir}${sep}`)) {
      throw new PackagingError('ENTRY_INVALID', `bin ${bin} of ${name} points outside the package`);
    }
    await resolveSymlinks(root);
    const entry = relative(root, entryAbsolute).split(sep).join('/');
    const entryBytes = await readFile(entryAbsolute).catch(() => {
      throw new PackagingError('ENTRY_INVALID', `bin ${bin} of ${name} (${entry}) does not exist`);
    });
    const id = options.id ?? npmPackageId(name);
    const description = typeof pkg.description === 'string' ? pkg.description : undefined;
    const manifest: PluginManifestInput = {
      manifestVersion: 1,
      id,
      name: name.slice(0, MANIFEST_LIMITS.nameChars),
      version: info.version.slice(0, MANIFEST_LIMITS.versionChars),
      ...(description === undefined || description.trim() === ''
        ? {}
        : { description: description.slice(0, MANIFEST_LIMITS.descriptionChars) }),
      runtime: {
        kind: 'mcp-stdio',
        entry,
        sha256: createHash('sha256').update(entryBytes).digest('hex'),
        interpreter: 'node',
        ...(args.length === 0 ? {} : { args: args.map(environmentReferences) }),
        ...(options.env === undefined || Object.keys(options.env).length === 0
          ? {}
          : {
              env: Object.fromEntries(
                Object.entries(options.env).map(([k, v]) => [k, environmentReferences(v)]),
              ),
            }),
      },
      capabilities: { tools: true },
    };
    await writeFile(join(root, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
    const resolved = locked.resolved ?? '';
    const registry = resolved.includes('/-/')
      ? resolved.slice(0, resolved.lastIndexOf(`${name}/-/`))
      : '';
    const source: ArtifactSource = {
      kind: 'npm',
      name,
      version: info.version,
      range,
      integrity: info.integrity,
      registry,
      bin,
      ...(options.env === undefined || Object.keys(options.env).length === 0
        ? {}
        : { env: options.env }),
      ...(args.length === 0 ? {} : { args }),
      ...(options.allowScripts === true ? { allowScripts: true } : {}),
    };
    return { dir: root, source, cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
