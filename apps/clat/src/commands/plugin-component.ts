/**
 * `clat plugin install <file.wasm>`: a bare WASM component becomes a package (the component plus
 * a generated manifest whose digest is computed and whose capabilities follow the component's
 * imports) in a temporary directory that the store then installs like any other.
 * @module
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import {
  MANIFEST_FILE,
  NATIVE_HOST_TOOLS,
  PLUGIN_ID_PATTERN,
  type PluginManifestInput,
} from '@clat/kernel';
import { PackagingError } from '@clat/packaging';

export const COMPONENT_ENTRY = 'plugin.wasm';

export interface ComponentPackageOptions {
  /** Package id; default: the file name without `.wasm`, lowercased and sanitized. */
  id?: string | undefined;
  /** Native host tools the guest may call (`host.call-tool` cannot be read from the binary). */
  hostTools?: readonly string[] | undefined;
}

export interface ComponentPackage {
  dir: string;
  manifest: PluginManifestInput;
  cleanup(): Promise<void>;
}

/** True when `path` names a `.wasm` file (a bare component rather than a package or container). */
export function isComponentFile(path: string): boolean {
  return path.toLowerCase().endsWith('.wasm');
}

function defaultId(file: string): string {
  const folded = basename(file, '.wasm')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '');
  return folded === '' ? 'wasm-plugin' : folded.slice(0, 128);
}

/** Builds the package directory for one component file. */
export async function packageFromComponent(
  file: string,
  options: ComponentPackageOptions = {},
): Promise<ComponentPackage> {
  const bytes = await readFile(file).catch((error: NodeJS.ErrnoException) => {
    throw new PackagingError('ENTRY_INVALID', `${file} cannot be read (${error.code ?? 'error'})`, {
      file,
    });
  });
  const { componentInterfaces } = await import('@clat/adapter-wasm');
  let interfaces: { imports: string[]; exports: string[] };
  try {
    interfaces = componentInterfaces(bytes);
  } catch (error) {
    throw new PackagingError(
      'ENTRY_INVALID',
      `${file} is not a WebAssembly component (${(error as Error).message}); build it with clat-wasm-build or jco componentize`,
      { file },
    );
  }
  const id = options.id ?? defaultId(file);
  if (!PLUGIN_ID_PATTERN.test(id)) {
    throw new PackagingError(
      'MANIFEST_INVALID',
      `--id ${JSON.stringify(id)} must match ${PLUGIN_ID_PATTERN}`,
      { file: MANIFEST_FILE },
    );
  }
  const hostTools = [...new Set(options.hostTools ?? [])];
  const unknown = hostTools.find(
    (tool) => !(NATIVE_HOST_TOOLS as readonly string[]).includes(tool),
  );
  if (unknown !== undefined) {
    throw new PackagingError(
      'MANIFEST_INVALID',
      `--host-tools names ${JSON.stringify(unknown)}, which is not a host tool; use ${NATIVE_HOST_TOOLS.join(', ')}`,
      { file: MANIFEST_FILE },
    );
  }
  const imports = (name: string) =>
    interfaces.imports.some((entry) => entry.startsWith(`clat:plugin/${name}@`));
  if (hostTools.length > 0 && !imports('host')) {
    throw new PackagingError(
      'MANIFEST_INVALID',
      `--host-tools was given, but ${basename(file)} does not import clat:plugin/host, so it cannot call host tools`,
      { file: MANIFEST_FILE },
    );
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const manifest: PluginManifestInput = {
    manifestVersion: 1,
    id,
    name: id,
    // The digest makes every build a distinct version, so `update` after a rebuild just works.
    version: `0.0.0+${sha256.slice(0, 12)}`,
    runtime: { kind: 'wasm-component', entry: COMPONENT_ENTRY, sha256 },
    capabilities: {
      tools: interfaces.exports.some((entry) => entry.startsWith('clat:plugin/tools@')),
      sampling: imports('sampling'),
      elicitation: imports('elicitation'),
      hostContext: imports('host'),
      hostTools,
    },
  };
  const dir = await mkdtemp(join(tmpdir(), 'clat-component-'));
  try {
    await writeFile(join(dir, COMPONENT_ENTRY), bytes);
    await writeFile(join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return { dir, manifest, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
