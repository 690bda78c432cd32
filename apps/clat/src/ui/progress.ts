/** A one-line "connecting…" indicator on stderr, shown only on a TTY and erased when done. @module */
import type { Writable } from 'node:stream';
import { type PluginMount, sanitizeTerminalLine } from '@clat/kernel';
import { statusLine } from './columns.js';
import { redrawsInPlace } from './line-prompt.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const FRAME_MS = 80;

/**
 * Starts the indicator when `stream` is a terminal that redraws in place (not `TERM=dumb`); the
 * returned function stops and erases it.
 */
export function showMountProgress(mount: PluginMount, stream: Writable): () => void {
  if (!redrawsInPlace(stream)) return () => {};
  let frame = 0;
  const draw = () => {
    const summary = mount.summary();
    if (summary.connecting === 0) return;
    const pending = summary.servers
      .filter((s) => s.state === 'connecting')
      .map((s) => sanitizeTerminalLine(s.name))
      .join(', ');
    const text = `${FRAMES[frame++ % FRAMES.length]} connecting MCP servers: ${summary.connected}/${summary.configured} connected, waiting for ${pending}`;
    stream.write(`\r\x1b[2K${statusLine(text, stream)}`);
  };
  const timer = setInterval(draw, FRAME_MS);
  draw();
  return () => {
    clearInterval(timer);
    stream.write('\r\x1b[2K');
  };
}
