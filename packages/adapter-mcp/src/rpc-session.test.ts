import { afterEach, describe, expect, it, vi } from 'vitest';
import { isMcpError, McpErrorCode } from './errors.js';
import { RpcSession } from './rpc-session.js';
import { type Reply, ScriptedServer, settle } from './test-support/scripted-server.js';
import type { JsonRpcMessage } from './transport.js';

function open(inboundLimit?: number) {
  const server = new ScriptedServer();
  const diagnostics: string[] = [];
  const session = new RpcSession(server.client, {
    server: 'test',
    onDiagnostic: (message) => diagnostics.push(message),
    ...(inboundLimit === undefined ? {} : { inboundLimit }),
  });
  return { server, session, diagnostics };
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const LONG = { timeoutMs: 60_000 };
const EXTENSION = { stepMs: 60_000, totalMs: 600_000 };

/**
 * A started session whose handler of the host request `method` extends deadlines and answers only
 * when `hold` resolves; its server never answers tools/call.
 */
async function holdingHostRequests(method: string) {
  const opened = open();
  const hold = deferred<void>();
  opened.session.setRequestHandler(
    method,
    async () => {
      await hold.promise;
      return {};
    },
    { extendsDeadline: true },
  );
  opened.server.on('tools/call', { silent: true });
  await opened.session.start();
  return { ...opened, hold };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('RpcSession result sizes', () => {
  it('sizes a result from the frame the transport read, less the JSON-RPC envelope', async () => {
    const { server, session } = open();
    server.on('x', { silent: true });
    await session.start();
    const byteLength = (text: string) => new TextEncoder().encode(text).length;
    const sized = session.requestSized('x', {}, LONG);
    const unsized = session.requestSized('x', {}, LONG);
    await settle();
    const [first, second] = server.requests('x') as { id: number }[];
    const result = { content: [{ type: 'text', text: 'héllo' }] };
    const frame = JSON.stringify({ jsonrpc: '2.0', id: first?.id, result });
    server.client.onmessage?.(
      { jsonrpc: '2.0', id: first?.id as number, result },
      byteLength(frame),
    );
    await expect(sized).resolves.toEqual({ result, bytes: byteLength(JSON.stringify(result)) });
    // Without a frame size (an in-memory peer) the caller sizes the result itself.
    await server.send({ jsonrpc: '2.0', id: second?.id as number, result });
    await expect(unsized).resolves.toEqual({ result, bytes: undefined });
    await session.close();
  });
});

describe('RpcSession response routing', () => {
  it('finds a request whose numeric id the server echoes as a string', async () => {
    const { server, session, diagnostics } = open();
    server.on('x', { silent: true });
    await session.start();
    const pending = session.request('x', {}, LONG);
    await settle();
    const id = (server.requests('x')[0] as { id: number }).id;
    await server.send({ jsonrpc: '2.0', id: `0${id}`, result: { n: 0 } });
    await server.send({ jsonrpc: '2.0', id: String(id), result: { n: 1 } });
    await expect(pending).resolves.toEqual({ n: 1 });
    expect(diagnostics.filter((d) => d.includes('unknown request id'))).toHaveLength(1);
    await session.close();
  });

  it('routes out-of-order responses to their requests by id', async () => {
    const { server, session } = open();
    const gates = { a: deferred<Reply>(), b: deferred<Reply>() };
    server.on('a', () => gates.a.promise).on('b', () => gates.b.promise);
    await session.start();
    const a = session.request('a', {}, LONG);
    const b = session.request('b', {}, LONG);
    await settle();
    gates.b.resolve({ result: { which: 'b' } });
    await expect(b).resolves.toEqual({ which: 'b' });
    gates.a.resolve({ result: { which: 'a' } });
    await expect(a).resolves.toEqual({ which: 'a' });
    await session.close();
  });

  it('drops duplicate and unknown response ids with a diagnostic', async () => {
    const { server, session, diagnostics } = open();
    server.on('x', { silent: true });
    await session.start();
    const pending = session.request('x', {}, LONG);
    await settle();
    const id = (server.requests('x')[0] as { id: number }).id;
    await server.send({ jsonrpc: '2.0', id, result: { n: 1 } });
    await server.send({ jsonrpc: '2.0', id, result: { n: 2 } });
    await server.send({ jsonrpc: '2.0', id: 999, result: {} });
    await expect(pending).resolves.toEqual({ n: 1 });
    await settle();
    expect(diagnostics.filter((d) => d.includes('unknown request id'))).toHaveLength(2);
    expect(diagnostics.join('\n')).toContain('999');
    await session.close();
  });

  it('fails pending requests when the connection closes', async () => {
    const { server, session } = open();
    server.on('x', { silent: true });
    await session.start();
    const pending = session.request('x', {}, LONG);
    await settle();
    await server.transport.close();
    await expect(pending).rejects.toMatchObject({ code: McpErrorCode.MCP_CONNECTION_CLOSED });
    expect(session.closed).toBe(true);
  });
});

describe('RpcSession server requests', () => {
  it('answers ping with {} and unknown methods with -32601', async () => {
    const { server, session } = open();
    await session.start();
    const ping = await server.request('ping');
    expect(ping).toMatchObject({ result: {} });
    const unknown = await server.request('roots/list');
    expect(unknown).toMatchObject({ error: { code: -32601 } });
    await session.close();
  });

  it('contains a throwing handler as -32603 and keeps serving', async () => {
    const { server, session } = open();
    session.setRequestHandler('boom', async () => {
      throw new Error('kaput');
    });
    session.setRequestHandler('fine', async () => ({ ok: true }));
    await session.start();
    const boom = await server.request('boom', {});
    expect(boom).toMatchObject({ error: { code: -32603 } });
    expect((boom as { error: { message: string } }).error.message).toContain('kaput');
    await expect(server.request('fine', {})).resolves.toMatchObject({ result: { ok: true } });
    await session.close();
  });

  it('rejects the 17th concurrent server request with a diagnostic while responses keep flowing', async () => {
    const { server, session, diagnostics } = open();
    const gate = deferred<void>();
    let started = 0;
    session.setRequestHandler('slow', async () => {
      started++;
      await gate.promise;
      return { done: true };
    });
    server.on('client/ask', { result: { answered: true } });
    await session.start();
    const flood = Array.from({ length: 17 }, (_, i) => server.request('slow', {}, `f${i}`));
    await settle();
    expect(started).toBe(16);
    expect(session.pendingServerRequests).toBe(16);
    // Reads are not blocked: a client request completes while 16 handlers wait.
    await expect(session.request('client/ask', {}, LONG)).resolves.toEqual({ answered: true });
    const rejected = await flood[16];
    expect(rejected).toMatchObject({ error: { code: -32000 } });
    expect(diagnostics.some((d) => d.includes('inbound queue full'))).toBe(true);
    gate.resolve();
    const served = await Promise.all(flood.slice(0, 16));
    expect(served.every((m) => 'result' in m)).toBe(true);
    await session.close();
  });

  it('runs server requests concurrently, not one after another', async () => {
    const { server, session } = open();
    const first = deferred<void>();
    session.setRequestHandler('wait', async () => {
      await first.promise;
      return { which: 'wait' };
    });
    session.setRequestHandler('quick', async () => ({ which: 'quick' }));
    await session.start();
    const waiting = server.request('wait', {});
    await expect(server.request('quick', {})).resolves.toMatchObject({
      result: { which: 'quick' },
    });
    first.resolve();
    await expect(waiting).resolves.toMatchObject({ result: { which: 'wait' } });
    await session.close();
  });

  it('aborts a handler when the server cancels its request and sends no response', async () => {
    const { server, session } = open();
    let aborted = false;
    session.setRequestHandler('long', (_params, ctx) => {
      return new Promise((_resolve, reject) => {
        ctx.signal.addEventListener('abort', () => {
          aborted = true;
          reject(new Error('stopped'));
        });
      });
    });
    await session.start();
    void server.request('long', {}, 'L1');
    await settle();
    await server.notify('notifications/cancelled', { requestId: 'L1' });
    await settle();
    expect(aborted).toBe(true);
    expect(server.received.filter((m) => 'id' in m && m.id === 'L1')).toHaveLength(0);
    await session.close();
  });
});

describe('RpcSession cancellation and deadlines', () => {
  it('cancellation removes the slot at once and sends notifications/cancelled', async () => {
    const { server, session, diagnostics } = open();
    server.on('slow', { silent: true });
    await session.start();
    const controller = new AbortController();
    const pending = session.request('slow', {}, { ...LONG, signal: controller.signal });
    await settle();
    const id = (server.requests('slow')[0] as { id: number }).id;
    controller.abort('user pressed Esc');
    const error = await pending.catch((e: unknown) => e);
    expect(isMcpError(error) && error.code).toBe(McpErrorCode.MCP_CANCELLED);
    const cancelled = (await server.waitFor(
      (m) => 'method' in m && m.method === 'notifications/cancelled',
    )) as JsonRpcMessage & { params: { requestId: unknown } };
    expect(cancelled.params.requestId).toBe(id);
    // A late answer is dropped quietly.
    await server.send({ jsonrpc: '2.0', id, result: {} });
    await settle();
    expect(diagnostics.filter((d) => d.includes('unknown request id'))).toHaveLength(0);
    await session.close();
  });

  it('does not send notifications/cancelled for non-cancellable requests', async () => {
    const { server, session } = open();
    server.on('initialize', { silent: true });
    await session.start();
    const controller = new AbortController();
    const pending = session.request(
      'initialize',
      {},
      {
        ...LONG,
        signal: controller.signal,
        cancellable: false,
      },
    );
    await settle();
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: McpErrorCode.MCP_CANCELLED });
    await settle();
    expect(server.requests('notifications/cancelled')).toHaveLength(0);
    await session.close();
  });

  it('times out at the deadline and cancels the request on the server', async () => {
    vi.useFakeTimers();
    const { server, session } = open();
    server.on('slow', { silent: true });
    await session.start();
    const pending = session.request('slow', {}, { timeoutMs: 1000 });
    const outcome = pending.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(999);
    await vi.advanceTimersByTimeAsync(1);
    expect(await outcome).toMatchObject({ code: McpErrorCode.MCP_TIMEOUT });
    await settle();
    expect(server.requests('notifications/cancelled')).toHaveLength(1);
    await session.close();
  });

  it('extends the deadline in steps while a same-connection host request is pending, up to the total', async () => {
    vi.useFakeTimers();
    const { server, session, hold } = await holdingHostRequests('sampling/createMessage');
    const call = session.request('tools/call', {}, { timeoutMs: 120_000, extension: EXTENSION });
    let settled: unknown;
    call.then(
      (v) => {
        settled = v;
      },
      (e: unknown) => {
        settled = e;
      },
    );
    await settle();
    void server.request('sampling/createMessage', {});
    await settle();
    expect(session.pendingHostRequests).toBe(1);
    await vi.advanceTimersByTimeAsync(120_000 + 600_000 - 1);
    expect(settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toMatchObject({ code: McpErrorCode.MCP_TIMEOUT });
    expect((settled as Error).message).toContain('720000 ms');
    hold.resolve();
    await session.close();
  });

  it('grants one more step when a host request finished since the last deadline', async () => {
    vi.useFakeTimers();
    const { server, session, hold } = await holdingHostRequests('sampling/createMessage');
    const call = session
      .request('tools/call', {}, { timeoutMs: 120_000, extension: EXTENSION })
      .catch((e: unknown) => e);
    void server.request('sampling/createMessage', {});
    await settle();
    await vi.advanceTimersByTimeAsync(119_000);
    hold.resolve();
    await settle();
    expect(session.pendingHostRequests).toBe(0);
    // At 120 s nothing is pending, but the sampling just ended: one step more, then no more.
    await vi.advanceTimersByTimeAsync(1_000 + 60_000 - 1);
    let done = false;
    void call.then(() => {
      done = true;
    });
    await settle();
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await call).toMatchObject({ code: McpErrorCode.MCP_TIMEOUT });
    expect((await call) as Error).toHaveProperty('message', expect.stringContaining('180000 ms'));
    await session.close();
  });

  it('does not extend without a pending host request, and user cancel wins during an extension', async () => {
    vi.useFakeTimers();
    const { server, session, hold } = await holdingHostRequests('elicitation/create');
    const plain = session
      .request('tools/call', {}, { timeoutMs: 120_000, extension: EXTENSION })
      .catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(await plain).toMatchObject({ code: McpErrorCode.MCP_TIMEOUT });

    const controller = new AbortController();
    const extended = session
      .request(
        'tools/call',
        {},
        { timeoutMs: 120_000, extension: EXTENSION, signal: controller.signal },
      )
      .catch((e: unknown) => e);
    void server.request('elicitation/create', {});
    await settle();
    await vi.advanceTimersByTimeAsync(200_000);
    controller.abort();
    expect(await extended).toMatchObject({ code: McpErrorCode.MCP_CANCELLED });
    hold.resolve();
    await session.close();
  });

  it('counts host requests per connection: one server cannot extend another', async () => {
    vi.useFakeTimers();
    const a = await holdingHostRequests('sampling/createMessage');
    const b = await holdingHostRequests('sampling/createMessage');
    void a.server.request('sampling/createMessage', {});
    await settle();
    expect(a.session.pendingHostRequests).toBe(1);
    const call = b.session
      .request(
        'tools/call',
        {},
        {
          timeoutMs: 120_000,
          extension: EXTENSION,
        },
      )
      .catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(await call).toMatchObject({ code: McpErrorCode.MCP_TIMEOUT });
    a.hold.resolve();
    await a.session.close();
    await b.session.close();
  });
});
