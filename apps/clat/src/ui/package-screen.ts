/** `clat plugin inspect|install|list` text views of a package. @module */
import { type PluginCapabilities, sanitizeTerminalLine } from '@clat/kernel';
import {
  type InspectedPackage,
  type PluginListEntry,
  sensitiveArgKeys,
  trustLabel,
} from '@clat/packaging';
import { columnsOf, fitLine, padColumns } from './columns.js';

/** Author-written fields are cut here on screen (the full value is in `--json`). */
const FIELD_CHARS = 200;

const FLAGS = ['tools', 'prompts', 'sampling', 'elicitation', 'hostContext'] as const;

/** One sanitised line of an author-written value, quoted so its start and end are visible. */
function authorField(value: string): string {
  return JSON.stringify(fitLine(value, FIELD_CHARS));
}

/**
 * The capability frame: CLAT's own words for every capability of the validated manifest, each
 * always on its own row with yes/no, so no author-written text can add, hide or reorder a row.
 */
function capabilityRows(capabilities: PluginCapabilities): string[] {
  const rows = FLAGS.map((flag) => `  | ${flag.padEnd(12)} ${capabilities[flag] ? 'YES' : 'no'}`);
  const hostTools = [...capabilities.hostTools].sort().map(sanitizeTerminalLine);
  rows.push(
    `  | ${'hostTools'.padEnd(12)} ${hostTools.length === 0 ? 'none' : hostTools.join(', ')}`,
  );
  return rows;
}

/** The `clat plugin inspect` screen: CLAT-checked facts first, then the labelled author fields. */
export function formatInspected(inspected: InspectedPackage): string {
  const { manifest, tree } = inspected;
  const prompts = (manifest.prompts ?? []).map((prompt) => sanitizeTerminalLine(prompt.name));
  const lines = [
    `Package ${sanitizeTerminalLine(manifest.id)} (checked by CLAT)`,
    `  runtime       ${manifest.runtime.kind}`,
    `  entry         ${authorField(manifest.runtime.entry)}  sha256 ${manifest.runtime.sha256}`,
    `  tree          sha256 ${tree.treeSha256}, ${tree.files.length} files, ${tree.totalBytes} bytes`,
    `  trust         ${trustLabel(inspected.trust)}`,
    `  configSchema  ${manifest.configSchema === undefined ? 'no' : 'yes'}`,
    `  prompts       ${prompts.length === 0 ? 'none' : prompts.join(', ')}`,
    'Capabilities requested (from the validated manifest):',
    ...capabilityRows(manifest.capabilities),
    'Written by the package author (not verified):',
    `  name          ${authorField(manifest.name)}`,
    `  version       ${authorField(manifest.version)}`,
    `  description   ${manifest.description === undefined ? '-' : authorField(manifest.description)}`,
  ];
  if (inspected.publisher !== undefined) {
    lines.push(
      `  publisher     ${authorField(inspected.publisher.publisher)} (signature verified)`,
    );
  }
  const exposed = sensitiveArgKeys(manifest);
  if (exposed.length > 0) lines.push(`Note: ${sensitiveArgsNote(exposed)}`);
  return `${lines.join('\n')}\n`;
}

/**
 * Why a package's sensitive settings in its server's arguments matter, and what its author
 * can do instead (`runtime.env`, or the server reading `CLAT_PLUGIN_CONFIG`).
 */
export function sensitiveArgsNote(keys: readonly string[]): string {
  const names = keys.map((key) => JSON.stringify(sanitizeTerminalLine(key))).join(', ');
  return `its sensitive setting${keys.length === 1 ? '' : 's'} ${names} ${keys.length === 1 ? 'is' : 'are'} passed in the server's command-line arguments, which other users of this machine can read (ps); a package can pass ${keys.length === 1 ? 'it' : 'them'} in "runtime.env" instead`;
}

/** The `clat plugin list` table; every cell is one sanitised line. */
export function formatPluginTable(rows: readonly PluginListEntry[]): string {
  if (rows.length === 0) {
    return 'No plugins installed. Install one with "clat plugin install npm:<name>" (an MCP server from npm), or from a directory, .clatpkg, .mcpb or .wasm file: "clat plugin install <path>".\n';
  }
  const header = ['ID', 'NAME', 'VERSION', 'RUNTIME', 'TREE', 'ENABLED', 'ROLLBACK', 'TRUST'];
  const cells = rows.map((row) =>
    [
      row.id,
      row.name,
      row.version,
      row.runtime,
      row.treeSha256.slice(0, 12),
      row.enabled ? 'yes' : 'no',
      row.rollbackVersion ?? '-',
      row.trust,
      row.publisher === undefined
        ? '-'
        : `${row.publisher.publisher} (${row.publisher.publicKey.slice(0, 12)}…)`,
    ].map((cell) => fitLine(cell, 41)),
  );
  const titles = [...header, 'PUBLISHER'];
  const widths = titles.map((title, i) =>
    Math.max(title.length, ...cells.map((line) => columnsOf(line[i] ?? ''))),
  );
  const format = (line: string[]) =>
    `${line.map((cell, i) => padColumns(cell, widths[i] ?? 0)).join('  ')}  `;
  const out = [`${format(titles)}HEALTH`];
  rows.forEach((row, index) => {
    out.push(`${format(cells[index] ?? [])}${sanitizeTerminalLine(row.health)}`);
  });
  // "ok" is about the installed bytes: a server that crashes at start is listed ok too.
  out.push('HEALTH checks the installed files; "clat mcp" shows whether each server starts');
  return `${out.join('\n')}\n`;
}
