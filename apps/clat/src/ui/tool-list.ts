/** `/tools` and `clat tools` text view. @module */
import { sanitizeTerminalLine, type ToolDefinition } from '@clat/kernel';

function sourceOf(tool: ToolDefinition): string {
  return sanitizeTerminalLine(
    tool.source.id === '' ? tool.source.kind : `${tool.source.kind}:${tool.source.id}`,
  );
}

export function formatTools(tools: readonly ToolDefinition[]): string {
  if (tools.length === 0) return '(no tools registered)\n';
  // Names, sources and descriptions come from servers and packages: one sanitised line each.
  const names = tools.map((tool) => sanitizeTerminalLine(tool.name));
  const nameWidth = Math.max(...names.map((name) => name.length));
  const sourceWidth = Math.max(...tools.map((tool) => sourceOf(tool).length));
  const lines = tools.map((tool, index) => {
    const first = sanitizeTerminalLine(tool.description.split('\n')[0] ?? '');
    return `  ${(names[index] ?? '').padEnd(nameWidth)}  ${tool.effect.padEnd(13)}  ${sourceOf(tool).padEnd(sourceWidth)}  ${first.slice(0, 80)}`;
  });
  return `${tools.length} tool${tools.length === 1 ? '' : 's'}:\n${lines.join('\n')}\n`;
}
