/**
 * Where the stdio transport reads a server's stdout from: the reader end of a socket pair, read
 * into one buffer this module reuses for every read of every server (`stdout-socket.ts`), or the
 * child's pipe where no pair can be made (and for prestarted servers, spawned before CLAT loads
 * this). Either way the transport gets each read as lent bytes, the end of the stream, and errors.
 * @module
 */
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { pairStdoutSocket } from './stdout-socket.js';

/** How a server's stdout is read. */
export type StdoutChannel = 'socket' | 'pipe';

export interface ServerOutputHandlers {
  /** The first `length` bytes of `bytes` arrived; they are lent for this call only. */
  chunk(bytes: Buffer, length: number): void;
  /** The server's stdout ended. */
  end(): void;
  error(error: Error): void;
}

/** A server's stdout. */
export interface ServerOutput {
  readonly channel: StdoutChannel;
  /** True once the stream's end was read. */
  readonly ended: boolean;
  /** Starts delivering to `handlers` (once). */
  read(handlers: ServerOutputHandlers): void;
  /** Stops reading and lets go of the stream. */
  destroy(): void;
}

/** Node's own read size for a stream: one read never returns more. */
const READ_BUFFER_BYTES = 64 * 1024;
/**
 * One buffer for every socket read in this process: a read lands in it and its callback runs
 * before libuv reads anything else, and the decoder copies what it keeps.
 */
let readBuffer: Buffer | undefined;

/** A server's stdout pipe, as child_process made it. */
export function pipeOutput(stdout: Readable): ServerOutput {
  return {
    channel: 'pipe',
    get ended() {
      return stdout.readableEnded;
    },
    read(handlers) {
      stdout.on('error', (error) => handlers.error(error));
      stdout.on('data', (chunk: Buffer) => handlers.chunk(chunk, chunk.length));
      stdout.on('end', () => handlers.end());
    },
    destroy() {
      stdout.destroy();
    },
  };
}

class SocketOutput implements ServerOutput {
  readonly channel = 'socket';
  #reader: Socket | undefined;
  #handlers: ServerOutputHandlers | undefined;
  #ended = false;

  get ended(): boolean {
    return this.#ended;
  }

  /** The pair's reader, paused until {@link read}. */
  adopt(reader: Socket): void {
    this.#reader = reader;
    reader.pause();
    reader.on('error', (error) => this.#handlers?.error(error));
    // 'close' without 'end' (a reset) ends the stream just the same.
    const ended = () => {
      if (this.#ended) return;
      this.#ended = true;
      this.#handlers?.end();
    };
    reader.on('end', ended);
    reader.on('close', ended);
  }

  onRead(length: number): void {
    this.#handlers?.chunk(readBuffer as Buffer, length);
  }

  read(handlers: ServerOutputHandlers): void {
    this.#handlers = handlers;
    this.#reader?.resume();
  }

  destroy(): void {
    this.#reader?.destroy();
  }
}

/** A server's stdout as a socket pair: what the transport reads, and what the child gets. */
export interface SocketOutputPair {
  readonly output: ServerOutput;
  /** The child's stdio[1]; destroyed here once the child is spawned. */
  readonly childEnd: Socket;
}

/** A socket pair for a server's stdout; undefined where none can be made (use a pipe). */
export async function openSocketOutput(): Promise<SocketOutputPair | undefined> {
  readBuffer ??= Buffer.allocUnsafeSlow(READ_BUFFER_BYTES);
  const output = new SocketOutput();
  const pair = await pairStdoutSocket(readBuffer, (length) => output.onRead(length));
  if (pair === undefined) return undefined;
  output.adopt(pair.reader);
  return { output, childEnd: pair.childEnd };
}
