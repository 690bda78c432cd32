/** `/tools` and `clat tools` text view. @module */
import { sanitizeTerminalLine, type ToolDefinition } from '@clat/kernel';
import { columnsOf, fitLine, padColumns } from './columns.js';

function sourceOf(tool: ToolDefinition): string {
  return sanitizeTerminalLine(
    tool.source.id === '' ? tool.source.kind : `${tool.source.kind}:${tool.source.id}`,
  );
}

export function formatTools(tools: readonly ToolDefinition[]): string {
  if (tools.length === 0) return '(no tools registered)\n';
  // Names, sources and descriptions come from servers and packages: one sanitised line each.
  // Widths in terminal columns (a server name may be CJK); the description cut at 80 columns
  // without splitting a character or an escape.
  const names = tools.map((tool) => sanitizeTerminalLine(tool.name));
  const sources = tools.map(sourceOf);
  const nameWidth = Math.max(...names.map(columnsOf));
  const sourceWidth = Math.max(...sources.map(columnsOf));
  const lines = tools.map((tool, index) => {
    const first = fitLine(tool.description.split('\n')[0] ?? '', 80);
    return `  ${padColumns(names[index] ?? '', nameWidth)}  ${tool.effect.padEnd(13)}  ${padColumns(sources[index] ?? '', sourceWidth)}  ${first}`;
  });
  return `${tools.length} tool${tools.length === 1 ? '' : 's'}:\n${lines.join('\n')}\n`;
}
