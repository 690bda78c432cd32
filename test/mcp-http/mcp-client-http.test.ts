import { McpClient } from '@clat/adapter-mcp';
import { HttpTransportFactory } from '@clat/adapter-mcp-http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type HttpFixture,
  startDualEraServer,
  startServerEverything,
  stopAllHttpFixtures,
} from '../fixtures/http-servers/spawn.js';
import { HttpHarness } from './support.js';

// The full path: HttpTransportFactory → McpClient (era negotiation) → mountMcpServer → kernel
// registry → ToolPipeline, against real HTTP servers on 127.0.0.1.
const SECRET = 'Bearer e2e-http-secret-7f6e5d4c3b2a';

let everything: HttpFixture;
let dual: HttpFixture;
let harness: HttpHarness;

beforeAll(async () => {
  [everything, dual] = await Promise.all([startServerEverything(), startDualEraServer()]);
});
afterEach(async () => {
  await harness?.close();
});
afterAll(stopAllHttpFixtures);

describe('MCP over Streamable HTTP, end to end', () => {
  it('server-everything: legacy era with a session, tools registered and callable', async () => {
    harness = new HttpHarness();
    const mounted = await harness.mount('everything', `${everything.origin}/mcp`, {
      headers: { Authorization: SECRET },
    });
    const status = mounted.status();
    expect(status).toMatchObject({
      state: 'connected',
      era: 'legacy',
      protocolVersion: '2025-11-25',
    });
    expect(status.tools).toBeGreaterThan(10);
    expect(harness.toolNames('everything')).toContain('mcp_everything_get_sum');
    const sum = await harness.call('mcp_everything_get_sum', { a: 40, b: 2 });
    expect(sum.content).toContain('42');
    const echo = await harness.call('mcp_everything_echo', { message: 'über HTTP' });
    expect(echo.content).toContain('über HTTP');
    const shown = JSON.stringify([status, mounted.status(), harness.diagnostics]);
    expect(shown).not.toContain('e2e-http-secret');
  });

  it('server-everything: 50 concurrent calls on one session each get their own answer', async () => {
    harness = new HttpHarness();
    await harness.mount('everything', `${everything.origin}/mcp`);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        harness.call('mcp_everything_get_sum', { a: i + 1, b: 10_000 }),
      ),
    );
    results.forEach((result, i) => {
      // The sum differs from both operands, so a crossed answer cannot pass.
      expect(result.content).toContain(String(10_001 + i));
    });
  });

  it('server-everything: cancelling a long call ends it promptly', async () => {
    harness = new HttpHarness();
    await harness.mount('everything', `${everything.origin}/mcp`);
    const controller = new AbortController();
    const call = harness.call(
      'mcp_everything_trigger_long_running_operation',
      { duration: 30, steps: 30 },
      controller.signal,
    );
    setTimeout(() => controller.abort('user pressed Esc'), 300);
    const started = Date.now();
    const outcome = await call.then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    // The pipeline reports cancellation as an error or an error result; never a finished call.
    expect(JSON.stringify(outcome)).toMatch(/cancel/i);
    // Hang detection only: the operation would run 30 s if the cancel were lost.
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('dual-era SDK v2 server: modern era negotiated over HTTP, tools callable', async () => {
    harness = new HttpHarness();
    const mounted = await harness.mount('dual', `${dual.origin}/`, {
      headers: { Authorization: SECRET },
    });
    expect(mounted.status()).toMatchObject({
      state: 'connected',
      era: 'modern',
      protocolVersion: '2026-07-28',
      // echo, slow, big, forecast; bad_header is dropped for its invalid x-mcp-header.
      tools: 4,
    });
    const echo = await harness.call('mcp_dual_echo', { text: 'modern' });
    expect(echo.content).toBe('echo: modern');
    const forecast = await harness.call('mcp_dual_forecast', { region: 'Köln', days: 2 });
    expect(forecast.content).toBe('2 days for Köln');
    const slow = await harness.call('mcp_dual_slow', { steps: 2 });
    expect(slow.content).toBe('done after 2 steps');
    // The server saw modern headers on the call, and never a session.
    await dual.waitFor(/"method":"tools\/call".*"mcpName":"echo"/);
    const calls = dual
      .stderr()
      .split('\n')
      .filter((line) => line.includes('"method":"tools/call"'))
      .map((line) => JSON.parse(line.slice(4)) as Record<string, unknown>);
    expect(calls.length).toBeGreaterThanOrEqual(2);
    for (const record of calls) {
      expect(record).toMatchObject({
        mcpMethod: 'tools/call',
        protocolVersion: '2026-07-28',
        session: false,
        authorization: true,
      });
    }
    expect(JSON.stringify([mounted.status(), harness.diagnostics])).not.toContain(
      'e2e-http-secret',
    );
  });

  it('dual-era SDK v2 server: a -32020 header mismatch re-lists tools and retries once', async () => {
    // Called before any tools/list, the transport knows no x-mcp-header declarations, so the
    // first call lacks its Mcp-Param-* headers and the server answers 400 -32020.
    const diagnostics: string[] = [];
    const client = await McpClient.connect({
      name: 'dual',
      factory: HttpTransportFactory.fromConfig({ url: `${dual.origin}/` }),
      onDiagnostic: (message) => diagnostics.push(message),
    });
    try {
      expect(client.era).toBe('modern');
      const result = await client.callTool('forecast', { region: 'Bonn', days: 3 });
      expect(result.content).toEqual([{ type: 'text', text: '3 days for Bonn' }]);
      expect(diagnostics.join('\n')).toMatch(/-32020.*re-listing tools and retrying once/);
    } finally {
      await client.close();
    }
  });

  it('a result above the tool-result limit is refused without breaking the connection', async () => {
    harness = new HttpHarness();
    await harness.mount('dual', `${dual.origin}/`);
    const big = await harness.call('mcp_dual_big', { bytes: 2 * 1024 * 1024 }).then(
      (result) => ({ result }),
      (error: unknown) => ({ error: String(error) }),
    );
    expect(JSON.stringify(big)).toMatch(/1048576|1 MiB|too large|limit/i);
    const after = await harness.call('mcp_dual_echo', { text: 'still here' });
    expect(after.content).toBe('echo: still here');
  });
});
