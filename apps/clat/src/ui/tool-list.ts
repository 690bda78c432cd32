/** `/tools` and `clat tools` text view. @module */
import { sanitizeTerminalLine, type ToolDefinition } from '@clat/kernel';
import { columnsOf, fitLine, padColumns } from './columns.js';

function sourceOf(tool: ToolDefinition): string {
  return sanitizeTerminalLine(
    tool.source.id === '' ? tool.source.kind : `${tool.source.kind}:${tool.source.id}`,
  );
}

/**
 * `tools` in the order `clat tools` and `/tools` show them: native tools first, then each
 * server's in the order of `servers` (the mount summary's, which is the configuration's), each
 * server's own in the order it listed them; a tool of no listed server comes last. The registry
 * keeps registration order, which is the order servers happened to answer in, so two runs of the
 * same configuration listed differently (and a CI snapshot of `clat tools --json` failed).
 */
export function inSurfaceOrder(
  tools: readonly ToolDefinition[],
  servers: readonly { readonly name: string }[],
): ToolDefinition[] {
  const rank = new Map(servers.map((server, index) => [server.name, index] as const));
  const rankOf = (tool: ToolDefinition): number =>
    tool.source.kind === 'native' ? -1 : (rank.get(tool.source.id) ?? servers.length);
  // Array#sort is stable: within one rank the registry's order (each server's listing) stays.
  return [...tools].sort((a, b) => rankOf(a) - rankOf(b));
}

/** Below this many columns a description says too little to be worth a wrapped row. */
const MIN_DESCRIPTION_COLUMNS = 16;

/**
 * The tools, one line each. `columns`, a terminal's width, cuts each description to what is left
 * of the row (none when that is too little), so no row wraps; without it (a pipe, a file) the
 * description is cut at 80 columns.
 */
export function formatTools(tools: readonly ToolDefinition[], columns?: number): string {
  if (tools.length === 0) return '(no tools registered)\n';
  // Names, sources and descriptions come from servers and packages: one sanitised line each.
  // Widths in terminal columns (a server name may be CJK); the description cut without
  // splitting a character or an escape.
  const names = tools.map((tool) => sanitizeTerminalLine(tool.name));
  const sources = tools.map(sourceOf);
  const nameWidth = Math.max(...names.map(columnsOf));
  const sourceWidth = Math.max(...sources.map(columnsOf));
  // Two spaces before the name and between the four fields; one column spare, so a row that
  // fills the line does not wrap on terminals that wrap at the last column.
  const left =
    columns === undefined ? 80 : columns - (2 + nameWidth + 2 + 13 + 2 + sourceWidth + 2) - 1;
  const lines = tools.map((tool, index) => {
    const row = `  ${padColumns(names[index] ?? '', nameWidth)}  ${tool.effect.padEnd(13)}  ${padColumns(sources[index] ?? '', sourceWidth)}`;
    if (left < MIN_DESCRIPTION_COLUMNS) return row.trimEnd();
    return `${row}  ${fitLine(tool.description.split('\n')[0] ?? '', left)}`;
  });
  return `${tools.length} tool${tools.length === 1 ? '' : 's'}:\n${lines.join('\n')}\n`;
}
