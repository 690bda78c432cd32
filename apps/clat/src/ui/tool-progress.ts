/**
 * Tool progress on a terminal: `tool.progress` run events as one line redrawn in place on a TTY,
 * or as plain lines otherwise. Progress messages and task statuses come from plugins: every text
 * goes through the sanitiser.
 * @module
 */
import type { Writable } from 'node:stream';
import { type RunEventOf, type RunEventStream, sanitizeTerminalLine } from '@clat/kernel';
// A line drawn on a TTY is cut to the terminal's width, so it never wraps (columns.ts).
import { statusLine } from './columns.js';

/** `mcp_x_op: 40% (2/5) fetching` or `mcp_x_op: task 7f3a working: Gathering sources`. */
export function formatToolProgress(event: RunEventOf<'tool.progress'>): string {
  const parts: string[] = [];
  if (event.task !== undefined) {
    parts.push(
      `task ${sanitizeTerminalLine(event.task.id)} ${sanitizeTerminalLine(event.task.status)}`,
    );
  }
  if (event.progress !== undefined) {
    if (event.total !== undefined && event.total > 0) {
      const percent = Math.min(100, Math.max(0, Math.floor((event.progress / event.total) * 100)));
      parts.push(`${percent}% (${event.progress}/${event.total})`);
    } else {
      parts.push(`progress ${event.progress}`);
    }
  }
  if (event.message !== undefined && event.message !== '') {
    parts.push(`${parts.length === 0 ? '' : '- '}${sanitizeTerminalLine(event.message)}`);
  }
  return `${sanitizeTerminalLine(event.tool)}: ${parts.join(' ')}`;
}

/**
 * Shows the progress of `runId`'s tool calls on `stream` until the returned function is called
 * (which erases a TTY line). `prefix` starts each plain line.
 */
export function showToolProgress(
  events: RunEventStream,
  runId: string,
  stream: Writable,
  options: { tty: boolean; prefix?: string },
): () => void {
  let drawn = false;
  const unsubscribe = events.on((event) => {
    if (event.runId !== runId) return;
    if (event.type === 'tool.progress') {
      const text = formatToolProgress(event);
      if (options.tty) {
        stream.write(`\r\x1b[2K${statusLine(text, stream)}`);
        drawn = true;
      } else {
        stream.write(`${options.prefix ?? ''}${text}\n`);
      }
    } else if (drawn && (event.type === 'tool.finished' || event.type === 'tool.failed')) {
      stream.write('\r\x1b[2K');
      drawn = false;
    }
  });
  return () => {
    unsubscribe();
    if (drawn) stream.write('\r\x1b[2K');
    drawn = false;
  };
}
