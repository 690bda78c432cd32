/** The RFC 8252 loopback redirect target: 127.0.0.1 only, an ephemeral port, one callback. @module */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const CALLBACK_PATH = '/callback';
const DONE_PAGE =
  '<!doctype html><meta charset="utf-8"><title>CLAT</title><p>CLAT received the authorization response. You can close this window and return to the terminal.</p>';

export interface LoopbackListener {
  /** `http://127.0.0.1:<port>/callback`, byte-identical on both legs of the flow. */
  readonly redirectUri: string;
  /** The query of the first request to the callback path; rejects on abort. */
  callback(signal: AbortSignal): Promise<URLSearchParams>;
  close(): Promise<void>;
}

/** Listens on `port` of 127.0.0.1, or rejects (EADDRINUSE, EACCES). */
function listen(server: Server, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/**
 * Listens on 127.0.0.1 (never a wildcard address): on `preferredPort` when it is free (the port a
 * registered client's redirect URI names), else on a port the OS picks.
 */
export async function startLoopbackListener(preferredPort?: number): Promise<LoopbackListener> {
  let deliver: ((params: URLSearchParams) => void) | undefined;
  const received = new Promise<URLSearchParams>((resolve) => {
    deliver = resolve;
  });
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== CALLBACK_PATH) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
      .end(DONE_PAGE);
    deliver?.(url.searchParams);
    deliver = undefined;
  });
  let bound = false;
  if (preferredPort !== undefined) {
    bound = await listen(server, preferredPort).then(
      () => true,
      () => false,
    );
  }
  if (!bound) await listen(server, 0);
  const { port } = server.address() as AddressInfo;
  return {
    redirectUri: `http://127.0.0.1:${port}${CALLBACK_PATH}`,
    callback(signal) {
      return new Promise<URLSearchParams>((resolve, reject) => {
        const onAbort = () => reject(signal.reason);
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
        received.then((params) => {
          signal.removeEventListener('abort', onAbort);
          resolve(params);
        });
      });
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
