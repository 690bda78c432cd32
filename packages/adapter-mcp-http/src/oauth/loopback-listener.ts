/**
 * The RFC 8252 loopback redirect target: 127.0.0.1 only, an ephemeral port, one callback; or the
 * fixed `http://localhost:<port>/callback` a client was registered with by hand.
 * @module
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const CALLBACK_PATH = '/callback';
const DONE_PAGE =
  '<!doctype html><meta charset="utf-8"><title>CLAT</title><p>CLAT received the authorization response. You can close this window and return to the terminal.</p>';
const FOREIGN_PAGE =
  '<!doctype html><meta charset="utf-8"><title>CLAT</title><p>This is not the authorization response CLAT is waiting for (an older login, or another program); CLAT is still waiting. Return to the terminal.</p>';

export interface LoopbackListener {
  /**
   * `http://127.0.0.1:<port>/callback` (`localhost` for a fixed port), byte-identical on both
   * legs of the flow.
   */
  readonly redirectUri: string;
  /**
   * The query of the first request to the callback path that `accept` takes (the login's own
   * `state`); any other is answered with a page that says so and ignored, so a stray request
   * (an old tab, another local program) cannot end the login (RFC 9700 §4.7). Rejects on abort.
   */
  callback(
    signal: AbortSignal,
    accept?: (params: URLSearchParams) => boolean,
  ): Promise<URLSearchParams>;
  close(): Promise<void>;
}

/** Listens on `port` of `host`, or rejects (EADDRINUSE, EACCES). */
function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/** Where {@link startLoopbackListener} listens. */
export interface LoopbackPort {
  /** Tried first, else a port the OS picks: the port a registered client's redirect URI names. */
  preferred?: number | undefined;
  /**
   * The port of a client registered by hand with `http://localhost:<port>/callback` (as Claude
   * Code registers its clients): that exact URI, on this port or not at all.
   */
  fixed?: number | undefined;
}

/**
 * Listens on 127.0.0.1 (never a wildcard address): on the `preferred` port when it is free, else
 * on a port the OS picks; or on the `fixed` port, also on ::1 when the machine has it (the
 * browser may resolve `localhost` to either), rejecting with the listen error when it is taken.
 */
export async function startLoopbackListener(at: LoopbackPort = {}): Promise<LoopbackListener> {
  let waiter:
    | { accept: (params: URLSearchParams) => boolean; deliver: (params: URLSearchParams) => void }
    | undefined;
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== CALLBACK_PATH) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    const taken = waiter?.accept(url.searchParams) ? waiter : undefined;
    res
      .writeHead(taken === undefined ? 400 : 200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
      })
      .end(taken === undefined ? FOREIGN_PAGE : DONE_PAGE);
    if (taken === undefined) return;
    waiter = undefined;
    taken.deliver(url.searchParams);
  };
  const server: Server = createServer(handle);
  const servers = [server];
  if (at.fixed !== undefined) {
    await listen(server, at.fixed, '127.0.0.1');
    const v6 = createServer(handle);
    try {
      await listen(v6, at.fixed, '::1');
      servers.push(v6);
    } catch (error) {
      // A machine without IPv6 loopback has only 127.0.0.1 for `localhost`; but another process
      // on [::1]:<port> would get the browser's redirect, code and all.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EADDRNOTAVAIL' && code !== 'EAFNOSUPPORT') {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        throw error;
      }
    }
  } else {
    let bound = false;
    if (at.preferred !== undefined) {
      bound = await listen(server, at.preferred, '127.0.0.1').then(
        () => true,
        () => false,
      );
    }
    if (!bound) await listen(server, 0, '127.0.0.1');
  }
  const { port } = server.address() as AddressInfo;
  return {
    redirectUri: `http://${at.fixed === undefined ? '127.0.0.1' : 'localhost'}:${port}${CALLBACK_PATH}`,
    callback(signal, accept = () => true) {
      return new Promise<URLSearchParams>((resolve, reject) => {
        const onAbort = () => {
          waiter = undefined;
          reject(signal.reason);
        };
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
        waiter = {
          accept,
          deliver: (params) => {
            signal.removeEventListener('abort', onAbort);
            resolve(params);
          },
        };
      });
    },
    async close() {
      await Promise.all(
        servers.map(
          (one) =>
            new Promise<void>((resolve) => {
              one.close(() => resolve());
              one.closeAllConnections();
            }),
        ),
      );
    },
  };
}
