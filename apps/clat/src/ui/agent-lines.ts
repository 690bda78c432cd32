/**
 * The lines a model turn shows for its tool calls, the same in `clat exec` (stderr) and in the
 * session: the call with a short preview of its arguments, then ✓ (with "(tool error)" when the
 * tool answered with an error) or ✗, and the note when the turn stopped at its step limit. Tool
 * names, arguments and results come from the model or a plugin, so every part is sanitised.
 * @module
 */
import { sanitizeTerminalLine, type ToolResult } from '@clat/kernel';
import type { ChatToolCall } from '@clat/provider-openai';

/** One line of at most `max` characters: whitespace runs folded, control characters escaped. */
export function preview(text: string, max = 160): string {
  const flat = sanitizeTerminalLine(text.replace(/\s+/g, ' ').trim());
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** `→ tool {"arguments"…}`: the model asked for this call. */
export function toolCallLine(call: ChatToolCall): string {
  return `→ ${sanitizeTerminalLine(call.name)} ${preview(call.arguments)}\n`;
}

/** `  ✓ tool: result…`, `  ✓ tool (tool error): …`, or `  ✗ tool: why it did not run`. */
export function toolResultLine(
  call: ChatToolCall,
  outcome: { result?: ToolResult; error?: string },
): string {
  const name = sanitizeTerminalLine(call.name);
  if (outcome.error !== undefined) return `  ✗ ${name}: ${preview(outcome.error)}\n`;
  const marker = outcome.result?.isError ? ' (tool error)' : '';
  return `  ✓ ${name}${marker}: ${preview(outcome.result?.content ?? '')}\n`;
}

/** The turn ended at its step limit instead of at an answer. */
export function exhaustedLine(maxSteps: number): string {
  return `stopped after ${maxSteps} model steps without a final answer\n`;
}
