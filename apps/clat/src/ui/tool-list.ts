/** `/tools` and `clat tools` text view. @module */
import type { ToolDefinition } from '@clat/kernel';

export function formatTools(tools: readonly ToolDefinition[]): string {
  if (tools.length === 0) return '(no tools registered)\n';
  const width = Math.max(...tools.map((tool) => tool.name.length));
  const lines = tools.map((tool) => {
    const source =
      tool.source.id === '' ? tool.source.kind : `${tool.source.kind}:${tool.source.id}`;
    const first = tool.description.split('\n')[0] ?? '';
    return `  ${tool.name.padEnd(width)}  ${tool.effect.padEnd(13)}  ${source.padEnd(14)}  ${first.slice(0, 90)}`;
  });
  return `${tools.length} tool${tools.length === 1 ? '' : 's'}:\n${lines.join('\n')}\n`;
}
