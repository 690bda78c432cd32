/**
 * Finds a DSH plugin package's entry module (clat-original §8 order: `exports['.']`
 * import/node/default → `module` → `main` → `src/index.{ts,tsx,js}` → `index.{ts,js}`) and
 * bundles it with esbuild, so TypeScript plugins and their dependencies load the same way in
 * `inspect`, `serve` and `package`. The entry must stay inside the package.
 * @module
 */

import { existsSync, realpathSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeJsonSyntaxError } from '@clat/kernel';
import { DshAdapterError, DshErrorCode } from '../errors.js';

export interface PluginPackage {
  /** Package root (directory holding package.json), or the file's directory for a bare file. */
  root: string;
  /** Absolute entry module. */
  entry: string;
  /** package.json contents, when there is one. */
  packageJson: Record<string, unknown> | undefined;
}

const FALLBACK_ENTRIES = ['src/index.ts', 'src/index.tsx', 'src/index.js', 'index.ts', 'index.js'];
const EXPORT_CONDITIONS = ['import', 'node', 'default'];

function pickExport(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  if ('.' in record) return pickExport(record['.']);
  for (const condition of EXPORT_CONDITIONS) {
    if (condition in record) {
      const picked = pickExport(record[condition]);
      if (picked !== undefined) return picked;
    }
  }
  return undefined;
}

function inside(root: string, file: string): boolean {
  const rel = relative(root, file);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

interface CompilerMessage {
  text: string;
  location: { file: string; line: number; column: number } | null;
}

/** esbuild's errors as `file:line:col: text`, joined; the first few, then a count. */
export function compilerMessages(error: unknown): string {
  const errors = (error as { errors?: CompilerMessage[] } | undefined)?.errors;
  if (!Array.isArray(errors) || errors.length === 0) {
    return error instanceof Error ? error.message : String(error);
  }
  const shown = errors
    .slice(0, 3)
    .map(({ text, location }) =>
      location === null
        ? text
        : `${location.file}:${location.line}:${location.column + 1}: ${text}`,
    );
  const more = errors.length - shown.length;
  return `${shown.join('; ')}${more > 0 ? ` (and ${more} more)` : ''}`;
}

/** Resolves a plugin package directory (or a module file) to its entry. */
export async function resolvePluginPackage(target: string, cwd: string): Promise<PluginPackage> {
  const path = resolve(cwd, target);
  if (!existsSync(path)) {
    throw new DshAdapterError(DshErrorCode.PLUGIN_NOT_LOADABLE, `${path} does not exist`);
  }
  if (statSync(path).isFile()) {
    return { root: dirname(path), entry: path, packageJson: undefined };
  }
  const manifestPath = join(path, 'package.json');
  let packageJson: Record<string, unknown> | undefined;
  if (existsSync(manifestPath)) {
    const text = await readFile(manifestPath, 'utf8');
    try {
      packageJson = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new DshAdapterError(
        DshErrorCode.PLUGIN_NOT_LOADABLE,
        `${manifestPath} is not valid JSON: ${describeJsonSyntaxError(text)}`,
      );
    }
  }
  const candidates: { from: string; file: string }[] = [];
  if (packageJson !== undefined) {
    const fromExports = pickExport(packageJson.exports);
    if (fromExports !== undefined)
      candidates.push({ from: 'package.json exports["."]', file: fromExports });
    for (const field of ['module', 'main'] as const) {
      const value = packageJson[field];
      if (typeof value === 'string')
        candidates.push({ from: `package.json ${field}`, file: value });
    }
  }
  for (const file of FALLBACK_ENTRIES) candidates.push({ from: file, file });
  for (const candidate of candidates) {
    const file = resolve(path, candidate.file);
    if (!inside(path, file)) {
      throw new DshAdapterError(
        DshErrorCode.PLUGIN_NOT_LOADABLE,
        `${candidate.from} (${candidate.file}) points outside the package ${path}`,
      );
    }
    if (existsSync(file) && statSync(file).isFile())
      return { root: path, entry: file, packageJson };
  }
  throw new DshAdapterError(
    DshErrorCode.PLUGIN_NOT_LOADABLE,
    `no plugin entry found in ${path} (tried exports["."], module, main, ${FALLBACK_ENTRIES.join(', ')})`,
  );
}

/** Where this adapter's own public module lives (dist when built, src under vitest). */
export function adapterModulePath(): { file: string; fromSource: boolean } {
  const here = fileURLToPath(import.meta.url);
  const fromSource = here.endsWith('.ts');
  // dist/cli/main.js → dist/index.js; src/cli/entry.ts → src/index.ts.
  const base = resolve(dirname(here), '..');
  const file = join(base, fromSource ? 'index.ts' : 'index.js');
  return { file, fromSource };
}

const FENCED = Symbol('clat-dsh-link-fence');

/**
 * An esbuild plugin refusing a path import, made from the package's own files, that names a file
 * inside the package but reaches one outside it through a symlink (a link to ~/.ssh, to another
 * project…): such a file would be inlined into the published package. Package imports
 * (dependencies) are not paths and are not affected.
 */
function linkFence(packageRoot: string): import('esbuild').Plugin {
  const root = realpathSync(packageRoot);
  const ownFile = (file: string) =>
    file === '' ||
    file === '<stdin>' ||
    (inside(root, file) && !file.split(sep).includes('node_modules'));
  return {
    name: 'clat-dsh-link-fence',
    setup(build) {
      build.onResolve({ filter: /^(\.{1,2}\/|\/)/ }, async (args) => {
        if (args.pluginData === FENCED || !ownFile(args.importer)) return undefined;
        const named = resolve(args.resolveDir, args.path);
        const lexicalRoot = inside(packageRoot, named) ? packageRoot : root;
        if (!inside(lexicalRoot, named)) return undefined;
        const result = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: FENCED,
        });
        if (result.errors.length > 0) return { errors: result.errors };
        if (result.path !== '' && result.namespace === 'file' && !inside(root, result.path)) {
          return {
            errors: [
              {
                text: `${named} leads outside the package (to ${result.path}) through a symlink; clat-dsh will not inline it`,
              },
            ],
          };
        }
        return {
          path: result.path,
          namespace: result.namespace,
          external: result.external,
          sideEffects: result.sideEffects,
          pluginData: result.pluginData,
        };
      });
    },
  };
}

export interface BundleResult {
  /** Plugin source files (inside the package, outside node_modules) that went into the bundle. */
  sources: string[];
}

/**
 * Bundles `entryCode` (resolved from `resolveDir`) into one self-contained ESM file. CJS
 * dependencies get a real `require` through the banner.
 */
export async function bundle(options: {
  entryCode: string;
  resolveDir: string;
  outfile: string;
  packageRoot: string;
  shebang?: boolean;
  minify?: boolean;
  /** Refuse files inside the package that reach outside it through a symlink (packaging). */
  refuseLinksOutside?: boolean;
}): Promise<BundleResult> {
  const { build } = await import('esbuild');
  const { fromSource } = adapterModulePath();
  const result = await build({
    stdin: {
      contents: options.entryCode,
      resolveDir: options.resolveDir,
      sourcefile: 'clat-dsh-entry.mjs',
      loader: 'js',
    },
    outfile: options.outfile,
    // Compiler messages name files relative to the plugin, as its author sees them.
    absWorkingDir: options.packageRoot,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    legalComments: 'none',
    minify: options.minify ?? false,
    metafile: true,
    logLevel: 'silent',
    ...(options.refuseLinksOutside === true ? { plugins: [linkFence(options.packageRoot)] } : {}),
    // Under vitest the workspace packages resolve to their TypeScript sources, as everywhere else.
    ...(fromSource ? { conditions: ['@clat/source'] } : {}),
    banner: {
      js: `${options.shebang === true ? '#!/usr/bin/env node\n' : ''}import { createRequire as __clatDshCreateRequire } from 'node:module';\nconst require = __clatDshCreateRequire(import.meta.url);`,
    },
  }).catch((error: unknown) => {
    throw new DshAdapterError(
      DshErrorCode.BUILD_FAILED,
      `building the plugin failed: ${compilerMessages(error)}`,
      { cause: error },
    );
  });
  const sources = Object.keys(result.metafile?.inputs ?? {})
    .map((input) => resolve(options.packageRoot, input))
    .filter(
      (file) =>
        inside(options.packageRoot, file) &&
        !file.split(sep).includes('node_modules') &&
        // The stdin wrapper is listed under its virtual name; keep only real files.
        existsSync(file),
    );
  return { sources };
}
