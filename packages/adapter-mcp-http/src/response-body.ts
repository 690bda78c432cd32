/**
 * Reading the body that answers one POST: a JSON body (one message or a batch) or an SSE stream,
 * resumed with `Last-Event-ID` when a legacy stream ends early.
 * @module
 */
import { type JsonRpcMessage, type JsonRpcRequest, parseJsonRpcMessage } from '@clat/adapter-mcp';
import { readBoundedText, readSse } from './body-reader.js';
import { describe, type HttpFailures } from './http-failures.js';
import { SSE_DEFAULT_RETRY_MS, SSE_RESUME_ATTEMPTS } from './sse-limits.js';

/** What reading a body needs from its transport. */
export interface BodyReader {
  readonly origin: string;
  /** Cap of one body or one SSE event. */
  readonly limit: number;
  readonly report: HttpFailures;
  /** `frameBytes`: the size of the frame that carried `message`, when it had one of its own. */
  deliver(message: JsonRpcMessage, frameBytes?: number): void;
  /** A problem that does not end the request (an unparsable event). */
  nonFatal(text: string): void;
  /** Reopens the stream of `request` after `retryMs` with `Last-Event-ID`. */
  resume(
    request: JsonRpcRequest,
    controller: AbortController,
    lastEventId: string,
    retryMs: number,
  ): Promise<ReadableStream<Uint8Array>>;
}

/** Reads a JSON body: delivers each message in it and fails when none answers `request`. */
export async function readJsonBody(
  response: Response,
  body: ReadableStream<Uint8Array>,
  request: JsonRpcRequest,
  controller: AbortController,
  reader: BodyReader,
): Promise<void> {
  let text: string;
  try {
    text = await readBoundedText(body, reader.limit);
  } catch (error) {
    throw reader.report.body(error, request, controller, response.status);
  }
  answerFromJson(response, text, request, reader);
}

/** Delivers each message of a JSON body already read, and fails when none answers `request`. */
export function answerFromJson(
  response: Response,
  text: string,
  request: JsonRpcRequest,
  reader: BodyReader,
): void {
  const what = describe(request);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    if (!response.ok) throw reader.report.status(response.status, request, text);
    throw reader.report.error(
      'HTTP_INVALID_BODY',
      `MCP server at ${reader.origin} answered ${what} with invalid JSON`,
      response.status,
    );
  }
  const messages = Array.isArray(value) ? value : [value];
  // A body holding one message is its frame: the client sizes a result from it.
  const frameBytes = messages.length === 1 ? Buffer.byteLength(text) : undefined;
  let answered = false;
  for (const item of messages) {
    const parsed = parseJsonRpcMessage(item);
    if ('invalid' in parsed) continue;
    // The body of a POST answers that POST: an error with a null id (SDK v1's "Bad Request")
    // belongs to this request, so the client core can read it (era detection needs the code).
    const message =
      'error' in parsed && parsed.id === null ? { ...parsed, id: request.id } : parsed;
    if ('id' in message && !('method' in message) && message.id === request.id) answered = true;
    reader.deliver(message, frameBytes);
  }
  if (answered) return;
  if (!response.ok) throw reader.report.status(response.status, request, text);
  throw reader.report.error(
    'HTTP_INVALID_BODY',
    `MCP server at ${reader.origin} answered ${what} without a JSON-RPC response to it`,
    response.status,
  );
}

/**
 * Reads an SSE response until it carries the answer. A legacy stream that ends early after
 * sending event ids is resumed with GET + `Last-Event-ID` after the server's `retry:` delay
 * (2025-11-25 polling); a modern stream is never resumed (the spec says re-issue instead).
 */
export async function readEventStream(
  first: ReadableStream<Uint8Array>,
  request: JsonRpcRequest,
  controller: AbortController,
  legacy: boolean,
  reader: BodyReader,
): Promise<void> {
  let body = first;
  let lastEventId: string | undefined;
  let retryMs = SSE_DEFAULT_RETRY_MS;
  for (let attempt = 0; ; attempt++) {
    const answered = await readEvents(body, request, controller, reader, {
      onId: (id) => {
        lastEventId = id;
      },
      onRetry: (ms) => {
        retryMs = ms;
      },
    });
    if (answered) return;
    if (!legacy || lastEventId === undefined || attempt >= SSE_RESUME_ATTEMPTS) {
      throw reader.report.error(
        'HTTP_STREAM_ENDED',
        `the SSE stream from MCP server at ${reader.origin} ended before the response to ${describe(request)}`,
      );
    }
    body = await reader.resume(request, controller, lastEventId, retryMs);
  }
}

async function readEvents(
  body: ReadableStream<Uint8Array>,
  request: JsonRpcRequest,
  controller: AbortController,
  reader: BodyReader,
  track: { onId: (id: string) => void; onRetry: (ms: number) => void },
): Promise<boolean> {
  try {
    return await readSse(body, {
      limit: reader.limit,
      onRetry: track.onRetry,
      onEvent: (event) => {
        if (event.id !== undefined && event.id !== '') track.onId(event.id);
        if (event.data === '') return false; // priming events carry an id and no data
        const parsed = deliverEventData(event.data, reader);
        return parsed !== undefined && !('method' in parsed) && parsed.id === request.id;
      },
    });
  } catch (error) {
    throw reader.report.body(error, request, controller, 200);
  }
}

/** Parses one SSE event's data and delivers it; a bad event is reported, never fatal. */
export function deliverEventData(
  data: string,
  reader: Pick<BodyReader, 'origin' | 'deliver' | 'nonFatal'>,
): JsonRpcMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    reader.nonFatal(`MCP server at ${reader.origin} sent an SSE event that is not JSON`);
    return undefined;
  }
  const parsed = parseJsonRpcMessage(value);
  if ('invalid' in parsed) {
    reader.nonFatal(`MCP server at ${reader.origin} sent an invalid message: ${parsed.invalid}`);
    return undefined;
  }
  reader.deliver(parsed, Buffer.byteLength(data));
  return parsed;
}
