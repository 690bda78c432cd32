/**
 * A real OpenAI-compatible chat-completions server on 127.0.0.1 for `clat exec` tests: each
 * request takes the next scripted reply and is recorded with its headers.
 * @module
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface RecordedChatRequest {
  headers: IncomingMessage['headers'];
  body: {
    model?: string;
    messages: { role: string; content: string | null; tool_call_id?: string }[];
    tools?: { type: string; function: { name: string } }[];
  };
}

export interface ScriptedToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** A reply that asks for tool calls, one that answers with text, or one that never answers. */
export type ScriptedReply = { toolCalls: ScriptedToolCall[] } | { text: string } | { hang: true };

export interface FakeChatServer {
  /** Base URL ending in /v1. */
  url: string;
  requests: RecordedChatRequest[];
  close(): Promise<void>;
}

function completion(
  reply: { toolCalls: ScriptedToolCall[] } | { text: string },
  index: number,
): unknown {
  const message =
    'text' in reply
      ? { role: 'assistant', content: reply.text }
      : {
          role: 'assistant',
          content: null,
          tool_calls: reply.toolCalls.map((call, position) => ({
            id: `call_${index}_${position}`,
            type: 'function',
            function: { name: call.name, arguments: JSON.stringify(call.arguments) },
          })),
        };
  return {
    id: `chatcmpl-${index}`,
    object: 'chat.completion',
    model: 'fake-model',
    choices: [{ index: 0, message, finish_reason: 'text' in reply ? 'stop' : 'tool_calls' }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}

export async function startFakeChatServer(replies: ScriptedReply[]): Promise<FakeChatServer> {
  const requests: RecordedChatRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      raw += chunk;
    });
    req.on('end', () => {
      requests.push({ headers: req.headers, body: JSON.parse(raw) as RecordedChatRequest['body'] });
      const reply = replies.shift();
      if (reply === undefined) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'the scripted conversation ran out' } }));
        return;
      }
      if ('hang' in reply) return;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(completion(reply, requests.length)));
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
