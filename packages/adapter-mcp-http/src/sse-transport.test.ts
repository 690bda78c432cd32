import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isSessionExpired, type JsonRpcMessage } from '@clat/adapter-mcp';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isHttpTransportError } from './errors.js';
import { SseTransport, type SseTransportOptions } from './sse-transport.js';

// A real HTTP+SSE server on 127.0.0.1 (the 2024-11-05 shape of SDK 1.x servers): GET /sse opens a
// stream whose first event names `/message?sessionId=<n>`; a POST there is answered 202 and its
// response goes down the stream. Each test may replace `onGet` and `onPost`.
interface Session {
  id: number;
  res: ServerResponse;
  req: IncomingMessage;
}
interface Post {
  session: string | null;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}
type OnGet = (res: ServerResponse, session: Session) => void;
type OnPost = (post: Post, res: ServerResponse, stream: Session | undefined) => void;

const SECRET = 'sse-secret-value-0123456789';
let server: Server;
let origin: string;
let sessions: Session[] = [];
let gets: IncomingMessage['headers'][] = [];
let posts: Post[] = [];
let onGet: OnGet;
let onPost: OnPost;

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

function event(res: ServerResponse, name: string | undefined, data: unknown): void {
  const text = typeof data === 'string' ? data : JSON.stringify(data);
  res.write(`${name === undefined ? '' : `event: ${name}\n`}data: ${text}\n\n`);
}

const defaultGet: OnGet = (res, session) => {
  res.writeHead(200, SSE_HEADERS);
  event(res, 'endpoint', `/message?sessionId=${session.id}`);
};

/** Answers each request on its session's stream: initialize, else an echo of the method. */
const defaultPost: OnPost = (post, res, stream) => {
  if (stream === undefined) {
    res.writeHead(404).end('Session not found');
    return;
  }
  res.writeHead(202).end('Accepted');
  const { id, method } = post.body;
  if (id === undefined) return;
  const result =
    method === 'initialize'
      ? { protocolVersion: '2024-11-05', capabilities: {}, serverInfo: { name: 's', version: '1' } }
      : { echoed: method };
  event(stream.res, 'message', { jsonrpc: '2.0', id, result });
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET' && url.pathname === '/sse') {
      gets.push(req.headers);
      const session: Session = { id: sessions.length + 1, res, req };
      sessions.push(session);
      onGet(res, session);
      return;
    }
    if (req.method === 'POST' && url.pathname === '/message') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const post: Post = {
          session: url.searchParams.get('sessionId'),
          headers: req.headers,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
        };
        posts.push(post);
        const stream = sessions.find(
          (s) => String(s.id) === post.session && !s.res.writableEnded && !s.req.destroyed,
        );
        onPost(post, res, stream);
      });
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  sessions = [];
  gets = [];
  posts = [];
  onGet = defaultGet;
  onPost = defaultPost;
});

const transports: SseTransport[] = [];
afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.close()));
});

function open(options: Partial<SseTransportOptions> = {}): {
  transport: SseTransport;
  received: JsonRpcMessage[];
  errors: string[];
} {
  const transport = new SseTransport({
    url: `${origin}/sse`,
    headers: { 'X-Api-Key': SECRET },
    ...options,
  });
  transports.push(transport);
  const received: JsonRpcMessage[] = [];
  const errors: string[] = [];
  transport.onmessage = (message) => received.push(message);
  transport.onerror = (error) => errors.push(error.message);
  return { transport, received, errors };
}

const initialize: JsonRpcMessage = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2024-11-05',
    capabilities: {},
    clientInfo: { name: 'c', version: '1' },
  },
};

async function until(check: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('SseTransport', () => {
  it('opens the stream, POSTs to its endpoint and resolves a request once its answer came down the stream', async () => {
    const { transport, received } = open();
    await transport.start();
    expect(transport.getStreamState()).toBe('open');
    expect(transport.hasSession).toBe(true);
    expect(gets[0]?.accept).toBe('text/event-stream');
    expect(gets[0]?.['x-api-key']).toBe(SECRET);
    await transport.send(initialize);
    expect(received).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        result: {
          protocolVersion: '2024-11-05',
          capabilities: {},
          serverInfo: { name: 's', version: '1' },
        },
      },
    ]);
    await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(posts.map((p) => [p.session, p.body.method])).toEqual([
      ['1', 'initialize'],
      ['1', 'notifications/initialized'],
    ]);
    expect(posts[0]?.headers['content-type']).toBe('application/json');
    expect(posts[0]?.headers['x-api-key']).toBe(SECRET);
    expect(transport.diagnostics().detail).toMatchObject({
      streams: 1,
      posts: 2,
      session: 'active',
      getStream: 'open',
    });
  });

  it('takes an answer that arrives on the stream before the POST is accepted', async () => {
    onPost = (post, res, stream) => {
      if (stream === undefined) return;
      event(stream.res, undefined, { jsonrpc: '2.0', id: post.body.id, result: { early: true } });
      setTimeout(() => res.writeHead(202).end(), 50);
    };
    const { transport, received } = open();
    await transport.start();
    await transport.send({ jsonrpc: '2.0', id: 7, method: 'ping' });
    expect(received).toEqual([{ jsonrpc: '2.0', id: 7, result: { early: true } }]);
  });

  it('refuses an endpoint on another origin, so configured headers never travel there', async () => {
    onGet = (res) => {
      res.writeHead(200, SSE_HEADERS);
      event(res, 'endpoint', 'http://evil.example/message?sessionId=1');
    };
    const { transport } = open();
    const error = await transport.start().catch((e: unknown) => e);
    expect(isHttpTransportError(error) && error.code).toBe('HTTP_INVALID_BODY');
    expect((error as Error).message).toBe(
      `MCP server at ${origin} named an HTTP+SSE endpoint on another origin (http://evil.example); CLAT posts messages only to the origin it connected to`,
    );
    expect(transport.getStreamState()).toBe('closed');
  });

  it('refuses an endpoint with credentials in it', async () => {
    onGet = (res) => {
      res.writeHead(200, SSE_HEADERS);
      event(res, 'endpoint', `${origin.replace('//', '//u:p@')}/message`);
    };
    const error = await open()
      .transport.start()
      .catch((e: unknown) => e);
    expect((error as Error).message).toContain('named an HTTP+SSE endpoint with credentials in it');
  });

  it('bounds the wait for the endpoint', async () => {
    onGet = (res) => {
      res.writeHead(200, SSE_HEADERS);
      res.write(': keep-alive\n\n');
    };
    const { transport } = open({ timeoutMs: 150 });
    const error = await transport.start().catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      `MCP server at ${origin} did not name its HTTP+SSE endpoint within 150 ms`,
    );
    await until(() => sessions[0]?.req.destroyed === true);
  });

  it('names the status or the content type of a GET that opens no stream, and never follows a redirect', async () => {
    onGet = (res) => res.writeHead(404, { 'content-type': 'text/plain' }).end('Cannot GET /sse');
    let error = await open()
      .transport.start()
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      `MCP server at ${origin} answered the HTTP+SSE stream (GET) with HTTP 404: Cannot GET /sse`,
    );
    onGet = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    error = await open()
      .transport.start()
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      `MCP server at ${origin} answered the HTTP+SSE stream (GET) with content type "application/json", expected text/event-stream`,
    );
    onGet = (res) => res.writeHead(302, { location: 'http://elsewhere.example/sse' }).end();
    error = await open()
      .transport.start()
      .catch((e: unknown) => e);
    expect((error as Error).message).toContain(
      'redirected the HTTP+SSE stream (GET) (HTTP 302) to http://elsewhere.example',
    );
    expect(gets).toHaveLength(3);
  });

  it('when the stream ends: a waiting request fails, others wait for initialize, which opens a new session', async () => {
    onPost = (post, res, stream) => {
      res.writeHead(202).end();
      // The server restarts while running the call: its stream ends without the answer.
      if (post.body.method === 'tools/call') stream?.res.end();
      else if (post.body.id !== undefined && stream !== undefined)
        event(stream.res, 'message', { jsonrpc: '2.0', id: post.body.id, result: {} });
    };
    const { transport, errors } = open();
    const states: string[] = [];
    transport.ongetstreamstate = (state) => states.push(state);
    await transport.start();
    const call = await transport
      .send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'x' } })
      .catch((e: unknown) => e);
    expect(isHttpTransportError(call) && call.code).toBe('HTTP_STREAM_ENDED');
    expect((call as Error).message).toBe(
      `the HTTP+SSE stream of MCP server at ${origin} ended before the response to tools/call (id 2)`,
    );
    // Not a forgotten session: the server may have run the call, so the client must not resend it.
    expect(isSessionExpired(call)).toBe(false);
    expect(transport.getStreamState()).toBe('closed');
    expect(errors).toContain(
      `MCP server at ${origin} ended its HTTP+SSE stream; the next request starts a new session`,
    );
    const next = await transport
      .send({ jsonrpc: '2.0', id: 3, method: 'tools/list' })
      .catch((e: unknown) => e);
    expect(isSessionExpired(next)).toBe(true);
    expect(posts).toHaveLength(1);
    await transport.send({ ...initialize, id: 4 } as JsonRpcMessage);
    expect(sessions).toHaveLength(2);
    expect(posts.at(-1)?.session).toBe('2');
    expect(transport.getStreamState()).toBe('open');
    expect(states).toEqual(['opening', 'open', 'closed', 'opening', 'open']);
  });

  it('a 404 to a POST means the server forgot the session: the message may be sent again after initialize', async () => {
    const { transport } = open();
    await transport.start();
    // The stream stays up, but the server lost track of the session (a load balancer moved it).
    onPost = (_post, res) => res.writeHead(404).end('Session not found');
    const error = await transport
      .send({ jsonrpc: '2.0', id: 5, method: 'tools/list' })
      .catch((e: unknown) => e);
    expect(isSessionExpired(error)).toBe(true);
    expect((error as Error).message).toBe(
      `MCP server at ${origin} no longer knows the HTTP+SSE session (HTTP 404 to tools/list (id 5))`,
    );
    expect(transport.hasSession).toBe(false);
    expect(transport.getStreamState()).toBe('closed');
    await until(() => sessions[0]?.res.destroyed === true);
  });

  it('closes the stream on an event over the message cap and fails the waiting request', async () => {
    onPost = (post, res, stream) => {
      res.writeHead(202).end();
      if (post.body.id !== undefined && stream !== undefined)
        event(stream.res, 'message', {
          jsonrpc: '2.0',
          id: post.body.id,
          result: { big: 'x'.repeat(5000) },
        });
    };
    const { transport, errors } = open({ maxMessageBytes: 1024 });
    await transport.start();
    const error = await transport
      .send({ jsonrpc: '2.0', id: 6, method: 'tools/call' })
      .catch((e: unknown) => e);
    expect((error as Error).message).toContain('ended before the response to tools/call (id 6)');
    expect(errors.join('\n')).toContain('sent more than 1024 bytes in one HTTP+SSE event');
  });

  it('stops waiting for a request the client cancelled', async () => {
    onPost = (_post, res) => res.writeHead(202).end();
    const { transport } = open();
    await transport.start();
    const pending = transport.send({ jsonrpc: '2.0', id: 8, method: 'tools/call' });
    await until(() => posts.length === 1);
    await transport.send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 8, reason: 'user' },
    });
    await expect(pending).resolves.toBeUndefined();
  });

  it('bounds a POST the server never answers, and keeps the configured header out of errors', async () => {
    onPost = () => {}; // SDK 1.x example servers never answer a POST for an unknown session
    const { transport } = open({ timeoutMs: 200 });
    await transport.start();
    const error = await transport
      .send({ jsonrpc: '2.0', method: 'notifications/initialized' })
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      `connection to MCP server at ${origin} failed during notifications/initialized: timed out`,
    );
    expect(JSON.stringify(transport.diagnostics())).not.toContain(SECRET);
  });

  it('close ends the stream and fails what still waits; later sends are refused', async () => {
    onPost = (_post, res) => res.writeHead(202).end();
    const { transport } = open();
    let closed = 0;
    transport.onclose = () => closed++;
    await transport.start();
    const pending = transport.send({ jsonrpc: '2.0', id: 9, method: 'tools/call' });
    await until(() => posts.length === 1);
    await transport.close();
    await transport.close();
    const error = await pending.catch((e: unknown) => e);
    expect(isHttpTransportError(error) && error.code).toBe('HTTP_CLOSED');
    expect(closed).toBe(1);
    expect(transport.getStreamState()).toBe('closed');
    await until(() => sessions[0]?.req.destroyed === true);
    await expect(transport.send({ jsonrpc: '2.0', method: 'x' })).rejects.toThrow('is closed');
  });
});
