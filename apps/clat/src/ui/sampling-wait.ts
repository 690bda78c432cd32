/**
 * The wait on the model during a plugin's sampling request, on a terminal: once the request is
 * allowed (by the person or the mode) nothing else moves on screen until the model answers, so
 * one line, redrawn in place and erased when the request ends, says what is happening and how
 * to stop it.
 * @module
 */
import type { Writable } from 'node:stream';
import { type RunEventStream, sanitizeTerminalLine } from '@clat/kernel';
import { statusLine } from './columns.js';

/** `asking the model for mcp:ev (Ctrl-C cancels)`; the source id is the plugin's. */
export function samplingWaitText(source: { kind: string; id: string }): string {
  return `asking the model for ${sanitizeTerminalLine(`${source.kind}:${source.id}`)} (Ctrl-C cancels)`;
}

/**
 * Shows the line for `runId`'s sampling requests on a TTY `stream` until the returned function
 * is called (which erases a line still drawn).
 */
export function showSamplingWait(
  events: RunEventStream,
  runId: string,
  stream: Writable,
): () => void {
  // requested names the source; approved (after the question) starts the wait.
  const sources = new Map<string, { kind: string; id: string }>();
  let drawn: string | undefined;
  const erase = () => {
    if (drawn !== undefined) stream.write('\r\x1b[2K');
    drawn = undefined;
  };
  const unsubscribe = events.on((event) => {
    if (event.runId !== runId) return;
    if (event.type === 'sampling.requested') sources.set(event.requestId, event.source);
    else if (event.type === 'sampling.approved') {
      const source = sources.get(event.requestId);
      if (source === undefined) return;
      stream.write(`\r\x1b[2K${statusLine(samplingWaitText(source), stream)}`);
      drawn = event.requestId;
    } else if (
      event.type === 'sampling.completed' ||
      event.type === 'sampling.failed' ||
      event.type === 'sampling.denied'
    ) {
      sources.delete(event.requestId);
      if (drawn === event.requestId) erase();
    }
  });
  return () => {
    unsubscribe();
    erase();
  };
}
