/**
 * Builds a guest: esbuild bundles the entry (clat:plugin/* stay imports), then componentize-js
 * (StarlingMonkey) turns it into a component of the clat:plugin world. Author-side only.
 * @module
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { componentize } from '@bytecodealliance/componentize-js';
import { build } from 'esbuild';
import { BUNDLE_FILE, topLevelException } from './top-level-exception.js';

/** The WIT contract shipped with this SDK (identical to the kernel's). */
export const PLUGIN_WIT_PATH = fileURLToPath(new URL('../wit/plugin.wit', import.meta.url));

/** A guest that does not compile or whose top level throws; the message carries the reason. */
export class GuestBuildError extends Error {
  readonly code = 'GUEST_BUILD_FAILED';

  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = 'GuestBuildError';
  }
}

interface CompilerMessage {
  text: string;
  location: { file: string; line: number; column: number } | null;
}

/** esbuild's errors as `file:line:col: text`, joined; the first few, then a count. */
function compilerMessages(error: unknown): string {
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

export interface BuildGuestOptions {
  /** Guest entry (.js or .ts) exporting `tools`. */
  entry: string;
  /** Output component path. */
  outFile: string;
  /**
   * Keep StarlingMonkey's `fetch` (wasi:http). CLAT refuses such components at load, so this
   * exists only to build refusal probes.
   */
  allowHttp?: boolean;
  /**
   * Source manifest (`clat-plugin.json` without a digest). When given, the build writes the
   * installable package manifest next to the component: `runtime.entry` is the component's file
   * name and `runtime.sha256` its computed digest, so `clat plugin install <outDir>` works.
   */
  manifest?: string;
}

export interface BuildGuestResult {
  outFile: string;
  bytes: number;
  /** Interfaces the component imports, as componentize-js reports them. */
  imports: string[];
  /** SHA-256 (hex) of the component. */
  sha256: string;
  /** The package manifest written next to the component, when `manifest` was given. */
  manifestFile?: string;
}

/** Bundles and componentizes one guest; the output is written atomically. */
export async function buildGuest(options: BuildGuestOptions): Promise<BuildGuestResult> {
  const entry = resolve(options.entry);
  const outFile = resolve(options.outFile);
  // The manifest is read first: a mistake in it is named before the slow componentize step,
  // and leaves the last build (component and manifest) as it was.
  const source =
    options.manifest === undefined
      ? undefined
      : await readSourceManifest(resolve(options.manifest), outFile);
  const work = await mkdtemp(join(tmpdir(), 'clat-wasm-build-'));
  try {
    const bundlePath = join(work, BUNDLE_FILE);
    await build({
      absWorkingDir: dirname(entry),
      entryPoints: [entry],
      outfile: bundlePath,
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      target: 'es2022',
      mainFields: ['module', 'main'],
      external: ['clat:plugin/*'],
      logLevel: 'silent',
    }).catch((error: unknown) => {
      throw new GuestBuildError(`bundling ${entry} failed: ${compilerMessages(error)}`, error);
    });
    const result = await componentize({
      sourcePath: bundlePath,
      witPath: PLUGIN_WIT_PATH,
      worldName: 'plugin',
      disableFeatures: options.allowHttp === true ? ['fetch-event'] : ['http', 'fetch-event'],
    }).catch((error: unknown) => {
      // Wizer runs the guest's top level at build time (definePlugin checks the tools there):
      // what it threw is the useful part of the report, which the cause keeps whole.
      const text = error instanceof Error ? error.message : String(error);
      const thrown = topLevelException(text);
      throw new GuestBuildError(
        thrown === undefined
          ? `componentize-js could not build ${entry}: ${text}`
          : `componentize-js could not build ${entry}: its top level threw: ${thrown}`,
        error,
      );
    });
    await mkdir(dirname(outFile), { recursive: true });
    await writeAtomically(outFile, result.component);
    const sha256 = createHash('sha256').update(result.component).digest('hex');
    const manifestFile =
      source === undefined ? undefined : await writePackageManifest(source, outFile, sha256);
    // Typed as [[iface, fn]][], but arrives as [iface, fn][]; accept either shape.
    const pairs = result.imports as unknown as ([string, string] | [[string, string]])[];
    const imports = [
      ...new Set(pairs.map((pair) => (Array.isArray(pair[0]) ? pair[0][0] : pair[0]))),
    ].sort();
    return {
      outFile,
      bytes: result.component.length,
      imports,
      sha256,
      ...(manifestFile === undefined ? {} : { manifestFile }),
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function writeAtomically(path: string, data: Uint8Array | string): Promise<void> {
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, data);
  await rename(temp, path);
}

/** A source manifest as read, and where the package manifest goes. */
interface SourceManifest {
  manifest: { runtime?: Record<string, unknown> } & Record<string, unknown>;
  target: string;
}

/** Reads and checks the source manifest before anything is built or written. */
async function readSourceManifest(source: string, component: string): Promise<SourceManifest> {
  let manifest: SourceManifest['manifest'];
  try {
    manifest = JSON.parse(await readFile(source, 'utf8'));
  } catch (error) {
    throw new GuestBuildError(
      `the manifest ${source} cannot be read as JSON: ${(error as Error).message}`,
      error,
    );
  }
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) {
    throw new GuestBuildError(`the manifest ${source} must be a JSON object`, undefined);
  }
  const target = join(dirname(component), 'clat-plugin.json');
  if (resolve(target) === source) {
    throw new GuestBuildError(
      `the manifest ${source} is the output manifest; keep the source manifest outside the output directory`,
      undefined,
    );
  }
  return { manifest, target };
}

/** Writes `<dir of component>/clat-plugin.json`: the source manifest with entry and digest. */
async function writePackageManifest(
  { manifest, target }: SourceManifest,
  component: string,
  sha256: string,
): Promise<string> {
  const runtime =
    typeof manifest.runtime === 'object' && manifest.runtime !== null ? manifest.runtime : {};
  const written = {
    ...manifest,
    runtime: { ...runtime, kind: 'wasm-component', entry: basename(component), sha256 },
  };
  await writeAtomically(target, `${JSON.stringify(written, null, 2)}\n`);
  return target;
}
