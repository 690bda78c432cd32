/** `/tools` and `clat tools` text view. @module */
import type { ToolDefinition } from '@clat/kernel';

function sourceOf(tool: ToolDefinition): string {
  return tool.source.id === '' ? tool.source.kind : `${tool.source.kind}:${tool.source.id}`;
}

export function formatTools(tools: readonly ToolDefinition[]): string {
  if (tools.length === 0) return '(no tools registered)\n';
  const nameWidth = Math.max(...tools.map((tool) => tool.name.length));
  const sourceWidth = Math.max(...tools.map((tool) => sourceOf(tool).length));
  const lines = tools.map((tool) => {
    const first = tool.description.split('\n')[0] ?? '';
    return `  ${tool.name.padEnd(nameWidth)}  ${tool.effect.padEnd(13)}  ${sourceOf(tool).padEnd(sourceWidth)}  ${first.slice(0, 80)}`;
  });
  return `${tools.length} tool${tools.length === 1 ? '' : 's'}:\n${lines.join('\n')}\n`;
}
