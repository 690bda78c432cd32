/**
 * The plugin store as a mount source: every enabled, verified package becomes an entry (origin
 * `package`): `mcp-stdio` packages an `mcp` entry, `wasm-component` packages a `wasm` entry, and
 * each package's static system prompts come with it.
 * @module
 */
import { join } from 'node:path';
import { mcpEntry } from '@clat/adapter-mcp';
import type { ConfigIssue, MountEntry, MountSource, PromptContribution } from '@clat/kernel';
import { STORE_DIR } from './plugin-store.js';
import { REGISTRY_FILE } from './registry.js';
import { installedServerEntries } from './server-entries.js';

// The WASM adapter's entry kind and config shape (`WASM_KIND`, `WasmEntryConfig`), repeated
// because adapters never import each other; the packaging e2e mounts an installed component.
const WASM_KIND = 'wasm';

export interface PackageStoreSourceOptions {
  /** The directory that holds the store (`plugin-store/`) and the packages' data and secrets. */
  clatHome: string;
  /** What a server's `${env.NAME}` reads (default: this process's environment). */
  env?: Readonly<Record<string, string | undefined>> | undefined;
}

/** The prompt's registry name: unique per package and prompt, in the registry's alphabet. */
function promptName(id: string, name: string): string {
  return `package_${id}_${name}`.replace(/[^A-Za-z0-9_]/g, '_');
}

/**
 * The packages installed under `clatHome`, each verified before it is listed. A damaged package
 * is an issue and is skipped; a malformed registry mounts nothing (one issue on registry.json).
 */
export function packageStoreSource(options: PackageStoreSourceOptions): MountSource {
  const { clatHome } = options;
  const registryFile = join(clatHome, STORE_DIR, REGISTRY_FILE);
  return {
    label: 'installed package',
    async collect() {
      const installed = await installedServerEntries(clatHome, options.env);
      const issues: ConfigIssue[] = [];
      if (installed.registryError !== undefined) {
        issues.push({ file: registryFile, path: '(root)', message: installed.registryError });
      }
      for (const issue of installed.issues) {
        issues.push({ file: issue.file ?? registryFile, path: issue.id, message: issue.message });
      }
      const entries: MountEntry[] = installed.servers.map(mcpEntry);
      for (const component of installed.components) {
        const config: { manifest: string; dirs: string[]; sensitive: string[]; config?: unknown } =
          { manifest: component.dir, dirs: [], sensitive: component.sensitive };
        if (component.config !== undefined) config.config = component.config;
        entries.push({ kind: WASM_KIND, name: component.id, origin: 'package', config });
      }
      const prompts = installed.prompts.map(
        (prompt): PromptContribution => ({
          name: promptName(prompt.server, prompt.name),
          source: { kind: 'package', id: prompt.server },
          text: prompt.system,
        }),
      );
      return { entries, issues, notes: installed.notes.map((note) => note.message), prompts };
    },
  };
}
