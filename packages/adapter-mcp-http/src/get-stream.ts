/**
 * The standalone SSE stream of a legacy Streamable HTTP session: the optional GET on which a
 * server sends requests and notifications that belong to no POST (an `elicitation/create` while a
 * tools/call is pending, list changes). A dropped stream is reopened after the server's `retry:`
 * delay with `Last-Event-ID`; a 405 means the server offers none.
 * @module
 */
import type { GetStreamState } from '@clat/adapter-mcp';
import { delay } from '@clat/kernel';
import { BodyTooLarge, readSse } from './body-reader.js';
import { SSE_DEFAULT_RETRY_MS, SSE_MIN_RETRY_MS, SSE_RESUME_ATTEMPTS } from './sse-limits.js';

export interface GetStreamOptions {
  /** The endpoint origin, for diagnostics. */
  origin: string;
  /** Cap of one SSE event, the same as on POST streams. */
  limit: number;
  /** Aborts the stream for good (the transport's own signal). */
  signal: AbortSignal;
  /** Sends one authorized GET with the session headers plus `Last-Event-ID` when given. */
  get(lastEventId: string | undefined, signal: AbortSignal): Promise<Response>;
  /** The data of one event (a JSON-RPC message as text), in order. */
  onData(data: string): void;
  /** A problem worth a diagnostic line; the stream decides itself whether to go on. */
  onProblem(text: string): void;
  /** Each change of {@link GetStream.state}, so a status view can show it without polling. */
  onState?(state: GetStreamState): void;
}

/** `text/event-stream; charset=utf-8` → `text/event-stream`. */
function mediaType(header: string | null): string {
  return (header ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
}

/**
 * Runs the standalone stream of one session until the transport closes. Reconnections in a row
 * that bring no event are bounded by {@link SSE_RESUME_ATTEMPTS}, like a POST stream's resumes.
 */
export class GetStream {
  readonly #options: GetStreamOptions;
  #state: GetStreamState = 'none';
  #started = false;
  #lastEventId: string | undefined;
  #retryMs = SSE_DEFAULT_RETRY_MS;
  #done: Promise<void> = Promise.resolve();

  constructor(options: GetStreamOptions) {
    this.#options = options;
  }

  get state(): GetStreamState {
    return this.#state;
  }

  /** Opens the stream once; later calls do nothing. Never rejects. */
  start(): void {
    if (this.#started || this.#options.signal.aborted) return;
    this.#started = true;
    this.#set('opening');
    this.#done = this.#run().then(
      (final) => {
        this.#set(final);
      },
      (error: unknown) => {
        this.#set('closed');
        this.#options.onProblem(
          `the GET stream of MCP server at ${this.#options.origin} failed: ${String(error)}`,
        );
      },
    );
  }

  #set(state: GetStreamState): void {
    if (state === this.#state) return;
    this.#state = state;
    try {
      this.#options.onState?.(state);
    } catch {
      // A status listener never breaks the stream.
    }
  }

  /** Resolves once the stream's loop has ended (after the transport's signal aborted). */
  settled(): Promise<void> {
    return this.#done;
  }

  async #run(): Promise<GetStreamState> {
    const { signal, origin } = this.#options;
    let quietAttempts = 0;
    for (let attempt = 0; ; attempt++) {
      if (attempt > 0) {
        try {
          await delay(Math.max(this.#retryMs, SSE_MIN_RETRY_MS), signal);
        } catch {
          return 'closed';
        }
      }
      if (signal.aborted) return 'closed';
      this.#set('opening');
      const controller = new AbortController();
      const both = AbortSignal.any([signal, controller.signal]);
      let response: Response;
      try {
        response = await this.#options.get(this.#lastEventId, both);
      } catch (error) {
        if (signal.aborted) return 'closed';
        quietAttempts++;
        if (quietAttempts >= SSE_RESUME_ATTEMPTS) {
          this.#options.onProblem(
            `gave up on the GET stream of MCP server at ${origin} after ${quietAttempts} failed attempts: ${error instanceof Error ? error.message : String(error)}`,
          );
          return 'closed';
        }
        continue;
      }
      if (response.status === 405) {
        await response.body?.cancel().catch(() => {});
        return 'none';
      }
      const type = mediaType(response.headers.get('content-type'));
      if (!response.ok || type !== 'text/event-stream' || response.body === null) {
        await response.body?.cancel().catch(() => {});
        const why = response.ok
          ? `content type ${JSON.stringify(type.slice(0, 60))}`
          : `HTTP ${response.status}`;
        // 404 on a session: the server forgot it; the next POST that meets this starts a new
        // session, whose own stream replaces this one.
        if (response.status === 404) {
          this.#options.onProblem(`the GET stream of MCP server at ${origin} was refused (${why})`);
          return 'closed';
        }
        quietAttempts++;
        if (quietAttempts >= SSE_RESUME_ATTEMPTS) {
          this.#options.onProblem(
            `gave up on the GET stream of MCP server at ${origin} after ${quietAttempts} attempts (${why})`,
          );
          return 'closed';
        }
        continue;
      }
      this.#set('open');
      let events = 0;
      try {
        await readSse(response.body, {
          limit: this.#options.limit,
          onRetry: (ms) => {
            this.#retryMs = ms;
          },
          onEvent: (event) => {
            events++;
            if (event.id !== undefined && event.id !== '') this.#lastEventId = event.id;
            // Priming events carry an id and no data.
            if (event.data !== '') this.#options.onData(event.data);
            return signal.aborted;
          },
        });
      } catch (error) {
        if (signal.aborted) return 'closed';
        controller.abort();
        if (error instanceof BodyTooLarge) {
          // The same event would come back on every resume: a server this broken keeps no stream.
          this.#options.onProblem(
            `MCP server at ${origin} sent more than ${error.limit} bytes in one event of its GET stream; the stream was closed`,
          );
          return 'closed';
        }
      }
      if (signal.aborted) return 'closed';
      quietAttempts = events > 0 ? 0 : quietAttempts + 1;
      if (quietAttempts >= SSE_RESUME_ATTEMPTS) {
        this.#options.onProblem(
          `gave up on the GET stream of MCP server at ${origin}: it ended ${quietAttempts} times in a row without an event`,
        );
        return 'closed';
      }
    }
  }
}
