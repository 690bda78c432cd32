/**
 * A stdio server's stdout as one end of a Unix socket pair, read by CLAT into one reused buffer.
 *
 * Why: a child_process pipe hands every read to JavaScript in a fresh 64 KiB Buffer. Under a
 * flood of frames near the 4 MiB cap those chunks pile up until V8 collects them (measured: RSS
 * +38 MiB while 64 MiB pass through, against +1.5 MiB when read into one reused buffer).
 * child_process cannot read a child's pipe into a given buffer, but it can give a child a socket
 * as its stdout, and a net.Socket CLAT connects itself can (`onread`). So CLAT connects a socket
 * to a listener of its own, hands the accepted end to the child (where libuv makes fd 1 blocking,
 * as it does with the socket pair behind a 'pipe') and reads the connecting end.
 *
 * Linux only: the listener has a name in the abstract namespace, so there is no file to create,
 * leak or clean up. Any local process may connect to an abstract name, so the listener writes a
 * random 16-byte token to each connection it accepts, and a reader takes the accepted end whose
 * token it read: its own peer, whoever else connected. A connection nobody claims within 2 s is
 * closed, and at most 256 wait at once. Where the listener cannot be made (another OS, a sandbox
 * without abstract sockets) or pairing fails or stalls, {@link pairStdoutSocket} answers
 * undefined and the caller uses a pipe.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';

const TOKEN_BYTES = 16;
/** A pairing that has not completed by then falls back to a pipe. */
const PAIRING_TIMEOUT_MS = 2_000;
/**
 * Connections not yet proven ours (our own included, until their token arrives); more are closed
 * at once, so a local process flooding the listener costs bounded memory. Ours then fall back.
 */
const MAX_UNPROVEN = 256;

/** The two ends of one pair: the child's stdout and the end CLAT reads. */
export interface StdoutSocketPair {
  /** Passed as the child's stdio[1]; destroy it in this process once the child is spawned. */
  readonly childEnd: Socket;
  /** The end CLAT reads: every read lands in `buffer`, then `onRead(length)` runs. */
  readonly reader: Socket;
}

interface Listener {
  readonly path: string;
  /** Accepted connections by the hex of the token written to them, until a reader claims one. */
  readonly accepted: Map<string, Accepted>;
}

interface Accepted {
  readonly socket: Socket;
  /** Takes it out of the listener's care: no timeout, no bookkeeping. */
  claim(): void;
}

let listener: Promise<Listener | undefined> | undefined;

/** Opens this process's listener once; undefined (for good) where it cannot exist. */
function openListener(): Promise<Listener | undefined> {
  listener ??= new Promise((resolve) => {
    if (process.platform !== 'linux') return resolve(undefined);
    const accepted = new Map<string, Accepted>();
    const server: Server = createServer((socket) => {
      if (accepted.size >= MAX_UNPROVEN) return void socket.destroy();
      const token = randomBytes(TOKEN_BYTES);
      const key = token.toString('hex');
      // A stranger that leaves frees its place at once; one that stays is closed in time.
      const forget = () => {
        clearTimeout(timer);
        if (accepted.get(key)?.socket === socket) accepted.delete(key);
      };
      const timer = setTimeout(() => {
        forget();
        socket.destroy();
      }, PAIRING_TIMEOUT_MS);
      timer.unref();
      socket.once('close', forget);
      socket.on('error', () => undefined);
      accepted.set(key, {
        socket,
        claim: () => {
          forget();
          socket.off('close', forget);
        },
      });
      socket.write(token);
    });
    const path = `\0clat-stdout-${process.pid}-${randomBytes(8).toString('hex')}`;
    server.once('error', () => resolve(undefined));
    server.listen({ path }, () => {
      // The listener lives as long as this process, which it never keeps alive.
      server.unref();
      server.on('error', () => undefined);
      resolve({ path, accepted });
    });
  });
  return listener;
}

/** The listener's name (abstract: it starts with a NUL), or undefined where there is none. */
export async function stdoutListenerPath(): Promise<string | undefined> {
  return (await openListener())?.path;
}

/**
 * A connected pair whose `reader` reads into `buffer` and calls `onRead`; undefined when this
 * platform or process cannot make one (use a pipe then).
 */
export async function pairStdoutSocket(
  buffer: Buffer,
  onRead: (length: number) => void,
): Promise<StdoutSocketPair | undefined> {
  const open = await openListener();
  if (open === undefined) return undefined;
  return new Promise((resolve) => {
    // Until paired, reads are the token the listener wrote to our accepted end.
    let token = '';
    let settled = false;
    const settle = (childEnd: Socket | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reader.off('error', fail);
      reader.off('close', fail);
      if (childEnd === undefined) {
        reader.destroy();
        resolve(undefined);
      } else {
        childEnd.pause();
        resolve({ childEnd, reader });
      }
    };
    const fail = () => settle(undefined);
    const reader = connect({
      path: open.path,
      onread: {
        buffer,
        callback: (length: number) => {
          if (settled) {
            onRead(length);
            return true;
          }
          token += buffer.toString('hex', 0, length);
          if (token.length < TOKEN_BYTES * 2) return true;
          const ours = token.length === TOKEN_BYTES * 2 ? open.accepted.get(token) : undefined;
          ours?.claim();
          settle(ours?.socket);
          return ours !== undefined;
        },
      },
    });
    const timer = setTimeout(fail, PAIRING_TIMEOUT_MS);
    timer.unref();
    // Closed before it was paired (the listener was full): a pipe at once, not after the timeout.
    reader.once('error', fail);
    reader.once('close', fail);
  });
}
