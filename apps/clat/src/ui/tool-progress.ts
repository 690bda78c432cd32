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

/** At most one progress line per call in this long, in the session's scrolling output. */
const PROGRESS_LINE_MS = 1_000;

/**
 * Whether a progress event deserves a line of its own where lines scroll (the session): the
 * first of each call, then at most one a second, and always one that completes the total or
 * changes a task's status. A server may send hundreds a second; each became a line, and the
 * call's output scrolled away under them.
 */
export function progressLineGate(
  intervalMs = PROGRESS_LINE_MS,
  now: () => number = Date.now,
): (event: RunEventOf<'tool.progress'>) => boolean {
  const shown = new Map<string, { at: number; task: string | undefined }>();
  return (event) => {
    const last = shown.get(event.callId);
    const at = now();
    const task = event.task?.status;
    const done =
      event.progress !== undefined && event.total !== undefined && event.progress >= event.total;
    if (last !== undefined && at - last.at < intervalMs && !done && task === last.task) {
      return false;
    }
    shown.set(event.callId, { at, task });
    return true;
  };
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
