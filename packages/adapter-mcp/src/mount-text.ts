/**
 * The texts a mounted MCP server contributes to its status and prompts: the task-support line of
 * `/mcp` and the resolved text of a marked DSH system prompt.
 * @module
 */
import { isJsonObject } from '@clat/kernel';
import { SYSTEM_PROMPT_META } from './host-services-wire.js';

/** Task support of one connection, counted from its listed tools (`/mcp`, `MountProgress.tasks`). */
export interface TaskSupport {
  /** The server offers task-augmented tools/call. */
  offered: boolean;
  /** Registered tools that run as tasks (`taskSupport: required`). */
  required: number;
  /** Registered tools that may run as tasks; CLAT calls them plainly. */
  optional: number;
  /** Tools that require tasks but were left out (the server does not offer tasks). */
  excluded: number;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** `/mcp` text of a server's task support (`MountProgress.tasks`). */
export function taskSupportText(tasks: TaskSupport): string {
  const parts: string[] = [];
  if (tasks.required > 0) {
    parts.push(
      tasks.required === 1 ? '1 tool runs as a task' : `${tasks.required} tools run as tasks`,
    );
  }
  if (tasks.optional > 0) parts.push(`${tasks.optional} optional (called plainly)`);
  if (tasks.excluded > 0) {
    parts.push(
      `${plural(tasks.excluded, 'tool')} that require${tasks.excluded === 1 ? 's' : ''} tasks left out`,
    );
  }
  const head = tasks.offered ? 'offered' : 'not offered';
  return parts.length === 0 ? head : `${head}: ${parts.join(', ')}`;
}

const PROMPT_TEXT_SEPARATOR = '\n\n';

/** The resolved text of a marked prompt: `_meta` system prompt, else text messages. */
export function promptText(result: Record<string, unknown>): string {
  const meta = isJsonObject(result._meta) ? result._meta : {};
  const direct = meta[SYSTEM_PROMPT_META];
  if (typeof direct === 'string') return direct;
  const messages = Array.isArray(result.messages) ? result.messages : [];
  const texts: string[] = [];
  for (const message of messages) {
    if (!isJsonObject(message)) continue;
    const blocks = Array.isArray(message.content) ? message.content : [message.content];
    for (const block of blocks) {
      if (isJsonObject(block) && block.type === 'text' && typeof block.text === 'string') {
        texts.push(block.text);
      }
    }
  }
  return texts.join(PROMPT_TEXT_SEPARATOR);
}
