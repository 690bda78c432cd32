/**
 * plugins.json as a mount source: each listed component becomes a `wasm` entry (origin
 * `plugins.json`) whose pin and config are checked at mount, since nothing checked them at install.
 * @module
 */
import type { MountEntry, MountSource } from '@clat/kernel';
import { isWasmError, WasmErrorCode } from './errors.js';
import { loadPluginsJson, type ParsedPluginsJson } from './plugins-json.js';
import { WASM_KIND, type WasmEntryConfig } from './wasm-connector.js';

export interface PluginsJsonSourceOptions {
  /** Absolute path of the plugins.json file; a missing file contributes nothing. */
  file: string;
  /** Relative component, manifest and directory paths in the file resolve against this. */
  clatHome: string;
}

/** The WASM plugins listed in `file`; a malformed entry becomes an issue naming its id. */
export function pluginsJsonSource(options: PluginsJsonSourceOptions): MountSource {
  const { file, clatHome } = options;
  return {
    label: 'plugins.json entry',
    async collect() {
      let parsed: ParsedPluginsJson;
      try {
        parsed = await loadPluginsJson(file, { clatHome });
      } catch (error) {
        if (!isWasmError(error) || error.code !== WasmErrorCode.WASM_CONFIG_INVALID) throw error;
        // As for a broken mcp.json: this file's plugins are skipped, every other source mounts.
        const problem = error.message.startsWith(`${file} `)
          ? error.message.slice(file.length + 1)
          : error.message;
        return {
          entries: [],
          issues: [
            {
              file,
              path: '(root)',
              message: `${problem}; its plugins are skipped until it is fixed by hand`,
            },
          ],
          notes: [],
          prompts: [],
        };
      }
      const entries = parsed.entries.map((entry): MountEntry<WasmEntryConfig> => {
        const config: WasmEntryConfig = { dirs: entry.dirs, validateConfig: true };
        if (entry.path !== undefined) config.path = entry.path;
        if (entry.manifest !== undefined) config.manifest = entry.manifest;
        if (entry.sha256 !== undefined) config.sha256 = entry.sha256;
        if (entry.config !== undefined) config.config = entry.config;
        if (entry.sensitive !== undefined) config.sensitive = entry.sensitive;
        return { kind: WASM_KIND, name: entry.id, origin: 'plugins.json', config };
      });
      return {
        entries,
        issues: parsed.issues.map((issue) => ({ file, path: issue.id, message: issue.message })),
        notes: [],
        prompts: [],
      };
    },
  };
}
