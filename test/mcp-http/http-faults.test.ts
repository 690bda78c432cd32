import { isSessionExpired } from '@clat/adapter-mcp';
import { HttpTransport, isHttpTransportError } from '@clat/adapter-mcp-http';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  type HttpFixture,
  startFaultServer,
  stopAllHttpFixtures,
} from '../fixtures/http-servers/spawn.js';
import { rawPeer } from './rpc-helper.js';

// Fault zoo, HTTP part: real misbehaving server processes. Each failure must end the request with
// a clear, typed error that names the server origin only (no path, no header values).
const SECRET = 'Bearer zoo-secret-token-0123456789';
const API_KEY = 'zk-live-abcdefghijklmnop';
const PATH_TOKEN = 'path-token-9f8e7d6c';

const fixtures: HttpFixture[] = [];
const transports: HttpTransport[] = [];
afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.close()));
  await Promise.all(fixtures.splice(0).map((f) => f.stop()));
});
afterAll(stopAllHttpFixtures);

async function faulty(mode: string, faultyMethod?: string) {
  const fixture = await startFaultServer(mode, faultyMethod);
  fixtures.push(fixture);
  const transport = new HttpTransport({
    url: `${fixture.origin}/mcp/${PATH_TOKEN}?key=${PATH_TOKEN}`,
    headers: { Authorization: SECRET, 'X-Api-Key': API_KEY },
  });
  transports.push(transport);
  return { fixture, transport, peer: rawPeer(transport) };
}

function expectClean(error: unknown, origin: string) {
  expect(isHttpTransportError(error)).toBe(true);
  const text = `${String(error)} ${JSON.stringify(error)}`;
  expect(text).toContain(origin);
  expect(text).not.toContain(PATH_TOKEN);
  expect(text).not.toContain('zoo-secret-token');
  expect(text).not.toContain(API_KEY);
}

async function failure(promise: Promise<unknown>): Promise<Error & { code: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (error === undefined) throw new Error('expected the request to fail');
  return error as Error & { code: string };
}

const call = { name: 'poke', arguments: {} };

describe('HTTP fault zoo (transport level)', () => {
  it('5xx fails the request with the status and origin', async () => {
    const { fixture, peer } = await faulty('status-500');
    const error = await failure(peer.request('tools/call', call));
    expect(error).toMatchObject({ code: 'HTTP_STATUS', status: 500 });
    expect(error.message).toContain('HTTP 500');
    expect(error.message).toContain('internal boom');
    expectClean(error, fixture.origin);
  });

  it('an error page echoing the credentials is redacted before it reaches the error', async () => {
    const { fixture, transport, peer } = await faulty('echo-auth-500');
    const error = await failure(peer.request('tools/call', call));
    expect(error.message).toContain('[REDACTED]');
    expectClean(error, fixture.origin);
    const diagnostics = JSON.stringify(transport.diagnostics());
    expect(diagnostics).toContain(fixture.origin);
    expect(diagnostics).not.toContain('zoo-secret-token');
    expect(diagnostics).not.toContain(API_KEY);
    expect(diagnostics).not.toContain(PATH_TOKEN);
  });

  it('a wrong content type is named in the error', async () => {
    const { fixture, peer } = await faulty('wrong-content-type');
    const error = await failure(peer.request('tools/call', call));
    expect(error).toMatchObject({ code: 'HTTP_CONTENT_TYPE' });
    expect(error.message).toContain('"text/html"');
    expectClean(error, fixture.origin);
  });

  it('invalid JSON is an invalid-body error', async () => {
    const { fixture, peer } = await faulty('invalid-json');
    const error = await failure(peer.request('tools/call', call));
    expect(error).toMatchObject({ code: 'HTTP_INVALID_BODY' });
    expectClean(error, fixture.origin);
  });

  it('a truncated SSE event ends the request instead of hanging it', async () => {
    const { fixture, peer } = await faulty('truncated-sse');
    const error = await failure(peer.request('tools/call', call));
    expect(error).toMatchObject({ code: 'HTTP_STREAM_ENDED' });
    expectClean(error, fixture.origin);
  });

  it('an SSE stream that ends without the response delivers what it had, then fails', async () => {
    const { fixture, peer } = await faulty('sse-no-response');
    const error = await failure(peer.request('tools/call', call));
    expect(error).toMatchObject({ code: 'HTTP_STREAM_ENDED' });
    expect(peer.inbound).toHaveLength(1);
    expectClean(error, fixture.origin);
  });

  it('a legacy SSE stream closed early is resumed with GET + Last-Event-ID after retry', async () => {
    const { fixture, peer } = await faulty('sse-poll');
    const reply = await peer.request('tools/call', call);
    expect(reply).toMatchObject({ result: { content: [{ text: 'resumed' }] } });
    expect(peer.inbound).toHaveLength(1);
    const resumed = /GET last-event-id=(\S+) after (\d+) ms/.exec(fixture.stderr());
    expect(resumed?.[1]).toBe('ev-2');
    // The server asked for 300 ms before reconnecting; an earlier GET breaks SEP-1699.
    expect(Number(resumed?.[2])).toBeGreaterThanOrEqual(290);
  });

  it('a stream that cannot be resumed (GET refused) fails clearly', async () => {
    const { fixture, peer } = await faulty('sse-poll-gone');
    const error = await failure(peer.request('tools/call', call));
    expect(error).toMatchObject({ code: 'HTTP_STREAM_ENDED', status: 405 });
    expect(error.message).toContain('resuming it failed (HTTP 405)');
    expectClean(error, fixture.origin);
  });

  it('a redirect is not followed: the other server never sees the configured headers', async () => {
    const target = await startFaultServer('status-500');
    fixtures.push(target);
    const source = await startFaultServer('redirect', undefined, {
      CLAT_REDIRECT_TO: target.origin,
    });
    fixtures.push(source);
    const transport = new HttpTransport({
      url: `${source.origin}/mcp`,
      headers: { Authorization: SECRET, 'X-Api-Key': API_KEY },
    });
    transports.push(transport);
    const error = await failure(rawPeer(transport).request('tools/list'));
    expect(error).toMatchObject({ code: 'HTTP_STATUS', status: 307 });
    // Origin and path, so the person can update the URL; never the query (it may hold a token).
    expect(error.message).toContain(`to ${target.origin}/stolen; redirects are not followed`);
    expect(error.message).not.toContain('redirect-path-token');
    expectClean(error, source.origin);
    await source.waitFor('HTTP POST /mcp');
    expect(target.stderr()).not.toContain('HTTP POST');
  });

  it('a connection reset is a network error naming the origin', async () => {
    const { fixture, peer } = await faulty('reset');
    const error = await failure(peer.request('tools/call', call));
    expect(error).toMatchObject({ code: 'HTTP_NETWORK' });
    expectClean(error, fixture.origin);
  });

  it('a reset in the middle of an SSE stream fails the request', async () => {
    const { fixture, peer } = await faulty('reset-mid-sse');
    const error = await failure(peer.request('tools/call', call));
    expect(['HTTP_NETWORK', 'HTTP_STREAM_ENDED']).toContain(error.code);
    expectClean(error, fixture.origin);
  });

  for (const mode of ['oversized-json', 'oversized-sse']) {
    it(`${mode}: the fetch is aborted at the 4 MiB cap`, async () => {
      const { fixture, peer } = await faulty(mode);
      const error = await failure(peer.request('tools/call', call));
      expect(error, error.message).toMatchObject({ code: 'HTTP_BODY_TOO_LARGE' });
      expect(error.message).toContain(String(4 * 1024 * 1024));
      expectClean(error, fixture.origin);
      // The server writes up to 64 MiB unless the client goes away; it must stop far earlier.
      await fixture.waitFor(/flood stopped after (\d+) bytes/);
      const written = Number(/flood stopped after (\d+) bytes/.exec(fixture.stderr())?.[1]);
      expect(written).toBeLessThan(32 * 1024 * 1024);
    });
  }

  it('many small SSE events below the cap are fine, even past 4 MiB in total', async () => {
    const { peer } = await faulty('sse-flood-events');
    const reply = await peer.request('tools/call', call);
    expect(reply).toMatchObject({ result: { content: [{ text: 'after flood' }] } });
    expect(peer.inbound.length).toBeGreaterThan(4000);
  });

  it('close() aborts a request the server never answers', async () => {
    for (const mode of ['stall', 'stall-sse']) {
      const { fixture, transport, peer } = await faulty(mode);
      const pending = failure(peer.request('tools/call', call));
      // Wait until the POST reached the server, so the abort hits an in-flight fetch.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await transport.close();
      const error = await pending;
      expect(error).toMatchObject({ code: 'HTTP_CLOSED' });
      expectClean(error, fixture.origin);
    }
  });

  it("the caller's signal aborts the pending POST of that request", async () => {
    const { peer, transport } = await faulty('stall-sse');
    const caller = new AbortController();
    const pending = failure(peer.request('tools/call', call, caller.signal));
    await new Promise((resolve) => setTimeout(resolve, 200));
    caller.abort();
    const error = await pending;
    expect(error).toMatchObject({ code: 'HTTP_CANCELLED' });
    expect(transport.diagnostics().detail).toMatchObject({ session: 'none' });
  });

  const initialize = {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 't', version: '0' },
  };

  for (const [mode, status] of [
    ['session-404', 404],
    ['session-400', 400],
  ] as const) {
    it(`a ${status} for the session a request carried drops the session and keeps the transport (${mode})`, async () => {
      const { fixture, transport, peer } = await faulty(mode, 'tools/list');
      await peer.request('initialize', initialize);
      expect(transport.hasSession).toBe(true);
      const error = await failure(peer.request('tools/list'));
      expect(error).toMatchObject({ code: 'HTTP_SESSION_EXPIRED', status, sessionExpired: true });
      expect(isSessionExpired(error)).toBe(true);
      expect(error.message).toContain(`no longer knows the session (HTTP ${status} to tools/list`);
      expectClean(error, fixture.origin);
      expect(transport.hasSession).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(peer.closed).toBeUndefined();
      // The transport is still usable: a new initialize starts a new session.
      await peer.request('initialize', initialize);
      expect(transport.hasSession).toBe(true);
    });
  }

  it('after a notification met a forgotten session, requests wait for a new initialize instead of going out without one', async () => {
    const { fixture, transport, peer } = await faulty(
      'session-404',
      'notifications/roots/list_changed',
    );
    await peer.request('initialize', initialize);
    const lost = await failure(peer.notify('notifications/roots/list_changed'));
    expect(lost).toMatchObject({ code: 'HTTP_SESSION_EXPIRED', sessionExpired: true });
    const refused = await failure(peer.request('tools/list'));
    expect(refused).toMatchObject({ code: 'HTTP_SESSION_EXPIRED', sessionExpired: true });
    expect(refused.message).toContain(
      'is gone; tools/list (id 2) waits for a new one (initialize)',
    );
    expect(fixture.stderr()).not.toContain('RPC tools/list');
    await peer.request('initialize', initialize);
    expect(transport.hasSession).toBe(true);
    expect(await peer.request('tools/list')).toMatchObject({
      result: { tools: [{ name: 'poke' }] },
    });
  });

  it('a 400 about the request itself keeps the session and answers with its JSON-RPC error', async () => {
    const { transport, peer } = await faulty('params-400', 'tools/call');
    await peer.request('initialize', initialize);
    const response = await peer.request('tools/call', call);
    expect(response).toMatchObject({ error: { code: -32602 } });
    expect(transport.hasSession).toBe(true);
  });

  it('an unreachable server is a network error', async () => {
    const { fixture } = await faulty('status-500');
    const origin = fixture.origin;
    await fixture.stop();
    const transport = new HttpTransport({
      url: `${origin}/mcp`,
      headers: { Authorization: SECRET },
    });
    transports.push(transport);
    const error = await failure(rawPeer(transport).request('tools/list'));
    expect(error).toMatchObject({ code: 'HTTP_NETWORK' });
    expect(error.message).toContain('ECONNREFUSED');
    expectClean(error, origin);
  });
});
