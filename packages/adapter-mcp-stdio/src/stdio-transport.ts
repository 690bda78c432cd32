/**
 * The stdio MCP transport: one server subprocess as its own process-group leader, newline-delimited
 * JSON both ways with a frame cap, one bounded writer queue, a redacted stderr tail, and a teardown
 * that closes stdin, waits, escalates SIGTERM then SIGKILL to the whole group, and reaps it.
 * The lifecycle (start, peer gone, teardown escalation) is one state machine over the child
 * process; reading inbound frames (`inbound-frames.ts`), options, cwd and the stderr tail are apart.
 * @module
 */
import { randomUUID } from 'node:crypto';
import {
  type JsonRpcMessage,
  MCP_LIMITS,
  type Transport,
  type TransportDiagnostics,
} from '@clat/adapter-mcp';
import { errorMessage, LIMITS, LineTail, Redactor } from '@clat/kernel';
import { killGroup, onHostEnding, signalGroup, trackGroup, untrackGroup } from '@clat/process';
import { SERVER_TAG_ENV, sweepDetached } from './detached-sweep.js';
import { secretEnvValues } from './env-secrets.js';
import { StdioTransportError, StdioTransportErrorCode } from './errors.js';
import { InboundFrames } from './inbound-frames.js';
import { slowStartHint } from './launcher-hint.js';
import { LineDecoder } from './line-decoder.js';
import { prepareServerCwd } from './server-cwd.js';
import {
  openSocketOutput,
  pipeOutput,
  type ServerOutput,
  type SocketOutputPair,
} from './server-output.js';
import { spawnFailureReason } from './spawn-failure.js';
import { type ServerProcess, spawnServerProcess } from './spawn-server.js';
import { lastWords, pushNewestLines, streamEnded } from './stderr-tail.js';
import type { StdioTransportOptions } from './stdio-options.js';

/** Bytes the writer queue may hold beyond what the pipe took: two full frames. */
export const WRITE_QUEUE_BYTES = 2 * MCP_LIMITS.stdioFrameBytes;

/** What `send` returns: the frame is queued (one settled promise for every frame). */
const SENT: Promise<void> = Promise.resolve();
/**
 * Corked frames of one turn are written once the queue holds this much (the stream counts string
 * length, not bytes): small enough that a 2-core machine runs the server on
 * the first batch while the client prepares the next, large enough to keep system calls few.
 */
const BATCH_FLUSH_BYTES = 8 * 1024;
/** After an exit, how long the last stdout bytes may take when a grandchild keeps the pipe open. */
const EXIT_DRAIN_MS = 250;
const MIB = 1024 * 1024;
/** A frame still without a newline after this many bytes is a runaway: the connection fails. */
const RUNAWAY_FRAME_BYTES = 64 * MIB;

type State = 'new' | 'starting' | 'open' | 'closing' | 'closed';

interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** One stdio connection to an MCP server subprocess. */
export class StdioTransport implements Transport {
  readonly kind = 'stdio';
  onmessage?: ((message: JsonRpcMessage, frameBytes?: number) => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onclose?: ((error?: Error) => void) | undefined;

  readonly #options: StdioTransportOptions;
  readonly #redactor: Redactor;
  readonly #grace: number;
  readonly #tail = new LineTail(LIMITS.stderrTailLines, LIMITS.stderrLineBytes);
  #state: State = 'new';
  #child: ServerProcess | undefined;
  #output: ServerOutput | undefined;
  #decoder: LineDecoder | undefined;
  #pid: number | undefined;
  #cwd: string | undefined;
  /** Removes this server's sweep from those an ending signal runs (its teardown sweeps). */
  #endingSweep: (() => void) | undefined;
  #exit: ExitInfo | undefined;
  readonly #exitWaiters = new Set<() => void>();
  #failure: StdioTransportError | undefined;
  #closing: Promise<void> | undefined;
  #finishTimer: NodeJS.Timeout | undefined;
  /** Inherited by every descendant through the environment, so setsid daemons can be found. */
  readonly #tag: string;
  /** The npx cold-cache hint: fixed by command and args, redacted when read (secrets may join). */
  readonly #slowStartHint: string | undefined;
  /** The first stdout line that was not a JSON-RPC frame, as {@link diagnostics} shows it. */
  #stray: string | undefined;
  #detachedKilled: number[] = [];
  #detachedLeft: number[] = [];
  #starting: Promise<void> | undefined;
  /**
   * Frames sent in this turn of the event loop: 0 none, 1 one (written at once), 2 more (the
   * pipe is corked until the turn's microtasks end).
   */
  #batch: 0 | 1 | 2 = 0;
  /** Ends a turn's batch; one function for the connection, not a closure per frame. */
  readonly #endBatch = (): void => {
    const corked = this.#batch === 2;
    this.#batch = 0;
    if (corked) this.#child?.stdin.uncork();
  };

  constructor(options: StdioTransportOptions) {
    this.#options = options;
    this.#redactor = options.redactor ?? new Redactor();
    for (const value of secretEnvValues(options.env)) this.#redactor.add(value);
    this.#grace = options.shutdownGraceMs ?? LIMITS.shutdownGraceMs;
    this.#tag = options.prestarted?.tag ?? randomUUID();
    this.#slowStartHint = slowStartHint(options.command, options.args ?? [], options.hostName);
  }

  /** The server pid (also its process-group id) once started. */
  get pid(): number | undefined {
    return this.#pid;
  }

  async start(): Promise<void> {
    if (this.#state !== 'new') {
      throw this.#error(StdioTransportErrorCode.STDIO_NOT_STARTED, 'was already started');
    }
    this.#state = 'starting';
    this.#starting = this.#launch();
    try {
      await this.#starting;
    } catch (error) {
      if (this.#state === 'starting') this.#state = 'closed';
      throw error;
    }
    if (this.#state !== 'starting') {
      // close() ran while we spawned; its teardown owns the process.
      throw this.#error(StdioTransportErrorCode.STDIO_CLOSED, 'was closed while starting');
    }
    this.#state = 'open';
    // An adopted process may have exited, and its stdout ended, before it was ours to watch.
    if (this.#exit !== undefined) this.#onPeerGone();
  }

  /**
   * Queues one line. Takes no send options: stdio has no per-message headers, and a request is
   * cancelled by `notifications/cancelled` (the client leaves `exchangePerMessage` unset for it).
   */
  send(message: JsonRpcMessage): Promise<void> {
    if (this.#state !== 'open') {
      const code =
        this.#state === 'new' || this.#state === 'starting'
          ? StdioTransportErrorCode.STDIO_NOT_STARTED
          : StdioTransportErrorCode.STDIO_CLOSED;
      return Promise.reject(
        this.#error(code, code === 'STDIO_CLOSED' ? 'is closed' : 'is not started'),
      );
    }
    let json: string;
    try {
      json = JSON.stringify(message);
    } catch (error) {
      return Promise.reject(
        this.#error(
          StdioTransportErrorCode.STDIO_FRAME_INVALID,
          `cannot encode an outbound message: ${errorMessage(error)}`,
          { cause: error },
        ),
      );
    }
    // A UTF-16 unit is at most 3 bytes: only a long frame is counted (Buffer.byteLength, no copy).
    const bytes =
      json.length * 3 <= MCP_LIMITS.stdioFrameBytes ? json.length : Buffer.byteLength(json);
    if (bytes > MCP_LIMITS.stdioFrameBytes) {
      return Promise.reject(
        this.#error(
          StdioTransportErrorCode.STDIO_FRAME_TOO_LARGE,
          `refused an outbound frame of ${bytes} bytes (limit ${MCP_LIMITS.stdioFrameBytes})`,
        ),
      );
    }
    const stdin = (this.#child as ServerProcess).stdin;
    // The pipe's own buffer is the one writer queue; cap it so a server that stops reading
    // cannot make us hold unbounded memory.
    const queued = json.length * 3 + 1;
    if (stdin.writableLength + queued > WRITE_QUEUE_BYTES) {
      const frame = Buffer.byteLength(json) + 1;
      if (stdin.writableLength + frame > WRITE_QUEUE_BYTES) {
        return Promise.reject(
          this.#error(
            StdioTransportErrorCode.STDIO_WRITE_QUEUE_FULL,
            `is not reading stdin: ${stdin.writableLength} bytes already queued (limit ${WRITE_QUEUE_BYTES})`,
          ),
        );
      }
    }
    // The first frame of a turn goes out at once, so the server starts on it; the frames sent
    // after it in the same turn (1,000 concurrent calls) are corked and leave in writes of about
    // BATCH_FLUSH_BYTES, the last when the turn's microtasks end: a few system calls instead of
    // one per frame, and the server works on the first batches while later calls are prepared.
    const batch = this.#batch;
    if (batch === 1) {
      this.#batch = 2;
      stdin.cork();
    } else if (batch === 0) {
      this.#batch = 1;
      queueMicrotask(this.#endBatch);
    }
    // A string is encoded straight into the pipe's write request: no intermediate Buffer.
    stdin.write(`${json}\n`);
    if (this.#batch === 2 && stdin.writableLength >= BATCH_FLUSH_BYTES) {
      // Frames keep their order: uncork writes what is queued before anything queued later.
      stdin.uncork();
      stdin.cork();
    }
    return SENT;
  }

  close(): Promise<void> {
    if (this.#closing !== undefined) return this.#closing;
    if (this.#state === 'new') {
      this.#state = 'closed';
      this.#closing = Promise.resolve();
      return this.#closing;
    }
    this.#closing = this.#shutdown(false);
    return this.#closing;
  }

  /** `await using transport = factory.open()` closes it like {@link close}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  diagnostics(): TransportDiagnostics {
    const detail: Record<string, string | number> = {
      command: this.#redactor.redact(this.#options.command),
    };
    if (this.#cwd !== undefined) detail.cwd = this.#cwd;
    if (this.#pid !== undefined) detail.pid = this.#pid;
    if (this.#output !== undefined) detail.stdout = this.#output.channel;
    if (this.#exit?.code !== undefined && this.#exit.code !== null)
      detail.exitCode = this.#exit.code;
    if (this.#exit?.signal) detail.signal = this.#exit.signal;
    if (this.#detachedKilled.length > 0) detail.detachedKilled = this.#detachedKilled.join(',');
    if (this.#detachedLeft.length > 0) detail.detachedLeft = this.#detachedLeft.join(',');
    const hint = this.#slowStartHint;
    const tail = this.#tail.lines(this.#redactor);
    // The first stdout line that was no JSON-RPC (a log line on the protocol channel): the usual
    // reason a server never answers, so it goes where a failed handshake quotes from.
    if (this.#stray !== undefined) tail.push(this.#stray);
    return {
      tail,
      detail,
      ...(hint === undefined ? {} : { slowStartHint: this.#redactor.redact(hint) }),
    };
  }

  async #launch(): Promise<void> {
    const adopted = await this.#options.prestarted?.ready;
    if (adopted !== undefined) {
      this.#cwd = adopted.cwd;
      // Once the prestart let go, the 'data' listeners below resume the streams (next tick).
      adopted.release();
      this.#attach(adopted.child, pipeOutput(adopted.child.stdout));
      this.#started(adopted.child);
      // An exit before adoption emitted no event these listeners could see.
      if (adopted.child.exitCode !== null || adopted.child.signalCode !== null) {
        this.#onExit(adopted.child.exitCode, adopted.child.signalCode);
      }
      return;
    }
    // The socket pair is made while the working directory is checked: both are on the way to
    // the spawn, and the first pairing of a process (its listener) takes a few milliseconds.
    const pairing = this.#options.stdout === 'pipe' ? undefined : openSocketOutput();
    try {
      this.#cwd = await this.#prepareCwd();
    } catch (error) {
      void pairing?.then((paired) => {
        paired?.output.destroy();
        paired?.childEnd.destroy();
      });
      throw error;
    }
    await this.#spawn(this.#cwd, await pairing);
  }

  async #prepareCwd(): Promise<string> {
    const { cwd: configured, defaultCwd, cwdGone } = this.#options;
    let cwd = configured ?? defaultCwd;
    try {
      cwd = await prepareServerCwd(configured, defaultCwd);
    } catch (error) {
      const gone =
        cwdGone !== undefined &&
        configured !== undefined &&
        (error as NodeJS.ErrnoException).code === 'ENOENT';
      throw this.#error(
        StdioTransportErrorCode.STDIO_CWD_INVALID,
        gone
          ? cwdGone
          : `cannot use working directory ${configured ?? cwd}: ${errorMessage(error)}`,
        { cause: error },
      );
    }
    return cwd;
  }

  /** Spawns the server with `paired`'s child end as its stdout, or with a pipe. */
  async #spawn(cwd: string, paired: SocketOutputPair | undefined): Promise<void> {
    let child: ServerProcess;
    try {
      child = spawnServerProcess(this.#options, cwd, this.#tag, paired?.childEnd);
    } catch (error) {
      paired?.output.destroy();
      throw this.#spawnError(error, cwd);
    } finally {
      // The child holds its own copy of its end now; ours would keep the stream from ending.
      paired?.childEnd.destroy();
    }
    const output = paired?.output ?? pipeOutput(child.stdout as NonNullable<typeof child.stdout>);
    this.#attach(child, output);
    await new Promise<void>((resolveSpawn, rejectSpawn) => {
      const onError = (error: Error) => {
        child.off('spawn', onSpawn);
        output.destroy();
        rejectSpawn(this.#spawnError(error, cwd));
      };
      const onSpawn = () => {
        child.off('error', onError);
        resolveSpawn();
      };
      child.once('error', onError);
      child.once('spawn', onSpawn);
    });
    this.#started(child);
  }

  /** The spawned process is this transport's: errors reported, group tracked, pid announced. */
  #started(child: ServerProcess): void {
    child.on('error', (error) => this.#report(error));
    this.#pid = child.pid as number;
    trackGroup(this.#pid);
    // A signal, or any exit, that ends the host before this teardown: its setsid() daemons are
    // swept too (at exit, synchronously, by their tag).
    this.#endingSweep = onHostEnding(
      () => sweepDetached(this.#tag),
      `${SERVER_TAG_ENV}=${this.#tag}`,
    );
    this.#options.onSpawn?.(this.#pid);
  }

  #onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.#exit = { code, signal };
    for (const wake of this.#exitWaiters) wake();
    this.#exitWaiters.clear();
    this.#onPeerGone();
  }

  /** Reads the process: stdout frames through the decoder, stderr into the tail, its exit. */
  #attach(child: ServerProcess, output: ServerOutput): void {
    this.#child = child;
    this.#output = output;
    child.stdin.on('error', (error) => this.#onStdinError(error));
    child.stderr.on('error', (error) => this.#report(error));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => pushNewestLines(this.#tail, chunk));
    const frames = new InboundFrames({
      server: this.#options.name,
      redactor: this.#redactor,
      closed: () => this.#state === 'closed',
      deliver: (message, frameBytes) => this.onmessage?.(message, frameBytes),
      report: (error) => {
        if (
          this.#stray === undefined &&
          error instanceof StdioTransportError &&
          error.code === StdioTransportErrorCode.STDIO_FRAME_INVALID
        ) {
          const what = error.message.replace(/^MCP server "[^"]*" /, '');
          this.#stray = `(stdout, ignored: MCP servers write only JSON-RPC there, logs go to stderr) ${what}`;
        }
        this.#report(error);
      },
      error: (code, what) => this.#error(code, what),
    });
    const decoder = new LineDecoder(
      MCP_LIMITS.stdioFrameBytes,
      {
        line: (bytes) => frames.line(bytes),
        oversized: (head, bytes, tail) => frames.oversized(head, bytes, tail),
        overflow: (seen) => {
          // Stop reading at once: draining a runaway frame costs CPU and GC for nothing.
          output.destroy();
          this.#fail(
            this.#error(
              StdioTransportErrorCode.STDIO_FRAME_TOO_LARGE,
              `sent a frame of ${seen}+ bytes without a newline (over ${RUNAWAY_FRAME_BYTES}); connection failed`,
            ),
          );
        },
      },
      RUNAWAY_FRAME_BYTES,
    );
    this.#decoder = decoder;
    output.read({
      chunk: (bytes, length) => decoder.push(bytes, length),
      end: () => this.#onPeerGone(),
      error: (error) => this.#report(error),
    });
    child.on('exit', (code, signal) => this.#onExit(code, signal));
  }

  #onStdinError(error: Error): void {
    // EPIPE: the server closed stdin or died; the exit path reports why.
    if (this.#state === 'open')
      this.#report(
        this.#error(
          StdioTransportErrorCode.STDIO_PROCESS_EXITED,
          `stopped reading stdin: ${errorMessage(error)}`,
        ),
      );
  }

  /** Stdout ended or the process exited: once both (or exit plus a grace) happened, the channel is over. */
  #onPeerGone(): void {
    if (this.#state !== 'open') return;
    const stdoutDone = this.#output?.ended === true;
    if (stdoutDone || this.#exit !== undefined) {
      // Let the last stdout bytes and stderr lines arrive; a grandchild may hold stdout open.
      if (stdoutDone && this.#exit !== undefined) this.#peerGoneNow();
      else if (this.#finishTimer === undefined) {
        this.#finishTimer = setTimeout(
          () => this.#peerGoneNow(),
          Math.min(this.#grace, EXIT_DRAIN_MS),
        );
      }
    }
  }

  #peerGoneNow(): void {
    if (this.#state !== 'open') return;
    // Still running with stdout closed: say so, before teardown's signals change the exit story.
    this.#fail(
      this.#exit === undefined
        ? this.#error(
            StdioTransportErrorCode.STDIO_PROCESS_EXITED,
            'closed its stdout while still running; connection failed',
          )
        : undefined,
    );
  }

  /** Fails the connection: tears down, then reports `error` (or the exit) through onclose. */
  #fail(error: StdioTransportError | undefined): void {
    if (this.#closing !== undefined) return;
    this.#failure = error;
    this.#closing = this.#shutdown(true);
  }

  /** `unexpected`: the peer failed or left, so onclose gets the reason. */
  async #shutdown(unexpected: boolean): Promise<void> {
    this.#state = 'closing';
    if (this.#finishTimer !== undefined) clearTimeout(this.#finishTimer);
    // A close during start waits for the spawn to settle so the process cannot escape teardown.
    await this.#starting?.catch(() => undefined);
    const child = this.#child;
    if (child !== undefined && this.#pid !== undefined) {
      const pgid = this.#pid;
      child.stdin.end();
      if (!(await this.#waitExit(this.#grace))) {
        signalGroup(pgid, 'SIGTERM');
        if (!(await this.#waitExit(this.#grace))) {
          signalGroup(pgid, 'SIGKILL');
          await this.#waitExit(this.#grace);
        }
      }
      // The leader is gone; grandchildren that kept running get the same escalation.
      await killGroup(pgid, this.#grace);
      untrackGroup(pgid);
      // Daemons that left the group (setsid) still carry the server's tag.
      this.#endingSweep?.();
      this.#endingSweep = undefined;
      const swept = await sweepDetached(this.#tag);
      if (swept.killed.length > 0) this.#detachedKilled = swept.killed;
      if (swept.left.length > 0) {
        this.#detachedLeft = swept.left;
        this.#report(
          this.#error(
            StdioTransportErrorCode.STDIO_PROCESS_EXITED,
            `left detached processes running that CLAT could not stop: pids ${swept.left.join(', ')}`,
          ),
        );
      }
      // What the server wrote to stderr just before it died may still sit in the pipe: read it
      // into the tail (bounded) before the pipes go, so the reason quotes its last words.
      await streamEnded(child.stderr, EXIT_DRAIN_MS);
      // Pipes a surviving grandchild still holds must not keep the host alive.
      this.#output?.destroy();
      child.stderr.destroy();
      child.stdin.destroy();
    }
    this.#decoder?.dispose();
    this.#tail.end();
    this.#state = 'closed';
    const reason = unexpected ? (this.#failure ?? this.#exitError()) : undefined;
    try {
      this.onclose?.(reason);
    } catch (error) {
      this.#report(error instanceof Error ? error : new Error(errorMessage(error)));
    }
  }

  #exitError(): StdioTransportError {
    const exit = this.#exit;
    const how =
      exit === undefined
        ? 'closed its stdout'
        : exit.signal !== null
          ? `was killed by ${exit.signal}`
          : `exited with code ${exit.code}`;
    const last = lastWords(this.#tail.lines(this.#redactor));
    return this.#error(
      StdioTransportErrorCode.STDIO_PROCESS_EXITED,
      `${how}${last === undefined ? '' : ` (stderr: ${last})`}`,
      { data: { ...(exit ?? {}) } },
    );
  }

  #waitExit(ms: number): Promise<boolean> {
    if (this.#exit !== undefined) return Promise.resolve(true);
    return new Promise((resolveWait) => {
      const wake = () => {
        clearTimeout(timer);
        resolveWait(true);
      };
      const timer = setTimeout(() => {
        this.#exitWaiters.delete(wake);
        resolveWait(this.#exit !== undefined);
      }, ms);
      this.#exitWaiters.add(wake);
    });
  }

  #spawnError(error: unknown, cwd: string): StdioTransportError {
    const code = (error as NodeJS.ErrnoException).code;
    const why = spawnFailureReason(error, this.#redactor.redact(this.#options.command));
    return this.#error(StdioTransportErrorCode.STDIO_SPAWN_FAILED, `${why} (cwd ${cwd})`, {
      cause: error,
      data: code === undefined ? {} : { errno: code },
    });
  }

  #report(error: Error): void {
    try {
      this.onerror?.(error);
    } catch {
      // A throwing diagnostic sink must not break the reader.
    }
  }

  #error(
    code: StdioTransportErrorCode,
    what: string,
    options: { cause?: unknown; data?: Record<string, unknown> } = {},
  ): StdioTransportError {
    return new StdioTransportError(code, `MCP server "${this.#options.name}" ${what}`, {
      ...options,
      data: { server: this.#options.name, ...options.data },
    });
  }
}
