/**
 * A real HTTP chat-completions server on 127.0.0.1: each request takes the next scripted reply
 * and is recorded (headers included) for assertions. For tests of this provider and of hosts
 * that drive it (`clat exec`, a custom distribution), without a model or a network.
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the server received it. */
export interface RecordedRequest {
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

/** A JSON reply, an SSE stream (with pauses), a request never answered, or a dropped socket. */
export type Reply =
  | { status?: number; json: unknown; headers?: Record<string, string> }
  | { sse: (string | { delayMs: number })[] }
  | { hang: true }
  | { destroy: true };

export interface ChatServer {
  /** Base URL ending in /v1. */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * Starts the server on an ephemeral loopback port. Replies are taken in order; once they run out,
 * each request gets a 500 saying so.
 */
export async function startChatServer(replies: Reply[]): Promise<ChatServer> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw) as Record<string, unknown>;
    requests.push({ headers: req.headers, body });
    const invalid = invalidToolSequence(body.messages);
    if (invalid !== undefined) {
      // Refused before the model, as the real API does: no scripted reply is used up.
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: { message: invalid, type: 'invalid_request_error', param: 'messages', code: null },
        }),
      );
      return;
    }
    const reply = replies.shift() ?? {
      status: 500,
      json: { error: { message: 'the scripted conversation ran out' } },
    };
    if ('hang' in reply) return;
    if ('destroy' in reply) {
      req.socket.destroy();
      return;
    }
    if ('json' in reply) {
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.json));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const part of reply.sse) {
      if (typeof part === 'string') res.write(part);
      else await new Promise((resolve) => setTimeout(resolve, part.delayMs));
    }
    res.end();
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      res.destroy(error as Error);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * Why `messages` would be refused by the OpenAI API for its tool-call sequence, or undefined: an
 * assistant message with `tool_calls` must be followed by one tool message per call id, and a
 * tool message must answer a call of the assistant message before it. A host whose history breaks
 * this (a turn cancelled between the calls and their results) fails every later request, so the
 * scripted server checks it as the real one does.
 */
function invalidToolSequence(messages: unknown): string | undefined {
  if (!Array.isArray(messages)) return undefined;
  let open: string[] = [];
  for (const message of messages as {
    role?: unknown;
    tool_calls?: unknown;
    tool_call_id?: unknown;
  }[]) {
    if (message.role === 'tool') {
      const index = open.indexOf(String(message.tool_call_id));
      if (index === -1) {
        return `Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls' (tool_call_id ${JSON.stringify(message.tool_call_id)}).`;
      }
      open.splice(index, 1);
      continue;
    }
    if (open.length > 0) break;
    open = Array.isArray(message.tool_calls)
      ? (message.tool_calls as { id?: unknown }[]).map((call) => String(call.id))
      : [];
  }
  if (open.length === 0) return undefined;
  return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${open.join(', ')}`;
}

/** One SSE event line for a chat.completion.chunk. */
export function chunk(
  delta: Record<string, unknown>,
  finish: string | null = null,
  extra: Record<string, unknown> = {},
): string {
  return `data: ${JSON.stringify({ object: 'chat.completion.chunk', model: 'fake-1', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
}

/** A tool call the scripted model asks for. */
export interface ScriptedToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** What a scripted model answers in one turn: tool calls, or text. */
export type ScriptedReply = { toolCalls: readonly ScriptedToolCall[] } | { text: string };

/**
 * A non-streamed `chat.completion` reply for the `n`th turn (tool-call ids `call_<n>_<i>`), so a
 * host test scripts a conversation as turns instead of wire JSON.
 */
export function completion(reply: ScriptedReply, n: number): Reply {
  const message =
    'text' in reply
      ? { role: 'assistant', content: reply.text }
      : {
          role: 'assistant',
          content: null,
          tool_calls: reply.toolCalls.map((call, position) => ({
            id: `call_${n}_${position}`,
            type: 'function',
            function: { name: call.name, arguments: JSON.stringify(call.arguments) },
          })),
        };
  return {
    json: {
      id: `chatcmpl-${n}`,
      object: 'chat.completion',
      model: 'fake-model',
      choices: [{ index: 0, message, finish_reason: 'text' in reply ? 'stop' : 'tool_calls' }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    },
  };
}
