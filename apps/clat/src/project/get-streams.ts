/**
 * `clat mcp` reports whether each legacy HTTP server keeps a GET stream. That GET is sent after
 * the handshake, so its answer can arrive after the surface is ready; a status waits a little
 * for it instead of printing a state that is about to change.
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

export interface GetStreamWait {
  /** The longest wait (default {@link GET_STREAM_SETTLE_MS}). */
  ms?: number;
  /**
   * Servers an earlier wait gave up on, which are not waited for again; a wait that runs out
   * adds the servers still opening. A session passes one set to all its waits, so a server that
   * never answers its GET costs one wait, not one per status.
   */
  gaveUp?: Set<string>;
}

function opening(mount: StatusSource, gaveUp: ReadonlySet<string> | undefined): string[] {
  return mount
    .summary()
    .servers.filter(
      (server) =>
        server.state === 'connected' &&
        server.getStream === 'opening' &&
        gaveUp?.has(server.name) !== true,
    )
    .map((server) => server.name);
}

/** Resolves once no connected plugin's GET stream is `opening`, or after `ms`. Never rejects. */
export function waitForGetStreams(
  mount: StatusSource,
  { ms = GET_STREAM_SETTLE_MS, gaveUp }: GetStreamWait = {},
): Promise<void> {
  if (opening(mount, gaveUp).length === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      stop();
      resolve();
    };
    const timer = setTimeout(() => {
      for (const name of opening(mount, gaveUp)) gaveUp?.add(name);
      done();
    }, ms);
    const stop = mount.onChange(() => {
      if (opening(mount, gaveUp).length === 0) done();
    });
  });
}
