/**
 * `clat mcp` reports whether each legacy HTTP server keeps a GET stream. That GET is sent after
 * the handshake, so its answer can arrive after the surface is ready; a one-shot status waits a
 * little for it instead of printing a state that is about to change.
 * @module
 */
import type { PluginMount } from '@clat/kernel';

/**
 * How long a status waits for GET streams still opening. A server answers the GET with its
 * headers at once (an event stream, or 405), so this covers a slow round trip; a server that
 * holds the headers longer shows as "opening".
 */
export const GET_STREAM_SETTLE_MS = 2_000;

type StatusSource = Pick<PluginMount, 'summary' | 'onChange'>;

function anyOpening(mount: StatusSource): boolean {
  return mount
    .summary()
    .servers.some((server) => server.state === 'connected' && server.getStream === 'opening');
}

/** Resolves once no connected plugin's GET stream is `opening`, or after `ms`. Never rejects. */
export function waitForGetStreams(
  mount: StatusSource,
  ms: number = GET_STREAM_SETTLE_MS,
): Promise<void> {
  if (!anyOpening(mount)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      stop();
      resolve();
    };
    const timer = setTimeout(done, ms);
    const stop = mount.onChange(() => {
      if (!anyOpening(mount)) done();
    });
  });
}
