/**
 * `clat plugin configure <id>`: shows an installed package's settings, or gives its active version
 * new ones (`--config key=value`, `--config-file`, `--config-json`) without fetching or touching
 * its bytes. Before, changing one setting meant `clat plugin update`, which fetches an npm
 * package again and needs the directory of a local one (whose path CLAT does not record).
 * Sensitive values are never shown: only whether one is set.
 * @module
 */
import type { JsonValue } from '@clat/kernel';
import { sanitizeTerminalLine, shellWord } from '@clat/kernel';
import type { PluginSettings, PluginStore } from '@clat/packaging';
import type { CommandIO } from '../command.js';
import { columnsOf, padColumns } from '../ui/columns.js';
import { jsonOutput } from '../ui/json-output.js';
import { givesSettings, type InstallFlags, installOptions } from './plugin-install.js';

/** One setting as `--json` gives it: a sensitive one's value never, only whether it is set. */
interface SettingRow {
  key: string;
  type?: string;
  title?: string;
  required?: boolean;
  sensitive?: boolean;
  default?: JsonValue;
  set: boolean;
  value?: JsonValue;
}

function ownValue(config: JsonValue | undefined, key: string): JsonValue | undefined {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) return undefined;
  return Object.hasOwn(config, key) ? config[key] : undefined;
}

/**
 * The declared settings first (manifest order), then keys the stored config holds beyond them (a
 * package with a configSchema takes any).
 */
export function settingRows(settings: PluginSettings): SettingRow[] {
  const fields = settings.manifest.userConfig ?? {};
  const rows: SettingRow[] = [];
  for (const [key, field] of Object.entries(fields)) {
    const row: SettingRow = { key, type: field.type, title: field.title, set: false };
    if (field.required === true) row.required = true;
    if (field.sensitive === true) row.sensitive = true;
    if (field.default !== undefined) row.default = field.default;
    if (field.sensitive === true) {
      row.set = settings.sensitiveSet.includes(key);
    } else {
      const value = ownValue(settings.config, key);
      if (value !== undefined) {
        row.set = true;
        row.value = value;
      }
    }
    rows.push(row);
  }
  const config = settings.config;
  if (typeof config === 'object' && config !== null && !Array.isArray(config)) {
    for (const [key, value] of Object.entries(config)) {
      if (!Object.hasOwn(fields, key)) rows.push({ key, set: true, value });
    }
  }
  return rows;
}

function describeRow(row: SettingRow): string {
  if (row.sensitive === true) return row.set ? 'set (sensitive, not shown)' : 'not set (sensitive)';
  if (row.set) return JSON.stringify(row.value);
  if (row.default !== undefined) return `not set (default ${JSON.stringify(row.default)})`;
  return row.required === true ? 'not set (required)' : 'not set';
}

/** The settings screen: one line per setting, then the command that changes one. */
export function formatSettings(settings: PluginSettings): string {
  const named = `${settings.id} ${sanitizeTerminalLine(settings.version)}`;
  const rows = settingRows(settings);
  if (rows.length === 0) {
    return settings.manifest.configSchema === undefined
      ? `${named} declares no settings\n`
      : `${named} has no config; its package takes one matching its configSchema: clat plugin configure ${shellWord(settings.id)} --config-json '{…}'\n`;
  }
  const keys = rows.map((row) => sanitizeTerminalLine(row.key));
  const width = Math.min(24, Math.max(...keys.map(columnsOf)));
  const lines = rows.map((row, index) => {
    const title = row.title === undefined ? '' : `  ${row.title}`;
    return `  ${padColumns(keys[index] ?? '', width)}  ${sanitizeTerminalLine(describeRow(row))}${sanitizeTerminalLine(title)}`;
  });
  return `${named} settings:\n${lines.join('\n')}\nChange one with: clat plugin configure ${shellWord(settings.id)} --config <key>=<value>\n`;
}

/** Runs `clat plugin configure <id>` with `flags`; returns the exit code. */
export async function configurePlugin(
  store: PluginStore,
  id: string,
  flags: InstallFlags & { json?: boolean },
  io: CommandIO,
): Promise<number> {
  if (!givesSettings(flags)) {
    const settings = await store.settings(id);
    if (flags.json === true) {
      const out = { id, version: settings.version, settings: settingRows(settings) };
      io.stdout.write(jsonOutput(out, 'clat plugin configure'));
    } else {
      io.stdout.write(formatSettings(settings));
    }
    return 0;
  }
  // configure reads the settings of install's options (config, values, terminal answers).
  const result = await store.configure(id, await installOptions(flags, io));
  const named = `${result.id} ${sanitizeTerminalLine(result.version)}`;
  io.stdout.write(
    result.changed
      ? `Configured ${named}: its new settings are saved. Restart CLAT to apply.\n`
      : `${named} already has these settings; nothing changed\n`,
  );
  return 0;
}
