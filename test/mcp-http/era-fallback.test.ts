/**
 * Era fallbacks over Streamable HTTP against a real SDK v2 server: a `server/discover` slower
 * than the 3 s probe, and a discover result without 2026-07-28, both end in the legacy
 * initialize; when both attempts fail the status names both.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  type HttpFixture,
  startSessionServer,
  stopAllHttpFixtures,
} from '../fixtures/http-servers/spawn.js';
import { HttpHarness } from './support.js';

function methods(fixture: HttpFixture): string[] {
  return fixture
    .stderr()
    .split('\n')
    .filter((line) => line.startsWith('REQ '))
    .map((line) => (JSON.parse(line.slice(4)) as { method: string | null }).method ?? '-');
}

let harness: HttpHarness;
afterEach(async () => {
  await harness.close();
  await stopAllHttpFixtures();
});

describe('HTTP era fallback', () => {
  it('falls back to initialize when server/discover takes longer than the 3 s probe', async () => {
    // Production deadlines: the probe limit of the spec table, then the legacy handshake.
    const server = await startSessionServer('slow-discover', {
      FIXTURE_DISCOVER_DELAY_MS: '3500',
    });
    harness = new HttpHarness();
    const mounted = await harness.mount('loaded', `${server.origin}/mcp`);
    const status = mounted.status();
    expect(status.state, status.failure).toBe('connected');
    expect(status.era).toBe('legacy');
    expect(status.protocolVersion).toBe('2025-11-25');
    expect(methods(server).slice(0, 2)).toEqual(['server/discover', 'initialize']);
    expect(harness.diagnostics.join('\n')).toContain(
      'did not answer server/discover within 3000 ms',
    );
    expect((await harness.call('mcp_loaded_echo', { text: 'late' })).content).toBe('echo: late');
  });

  it('reports both attempts when the probe and the legacy handshake both time out', async () => {
    const server = await startSessionServer('slow-discover', {
      FIXTURE_DISCOVER_DELAY_MS: '2000',
      FIXTURE_INITIALIZE_DELAY_MS: '3000',
    });
    harness = new HttpHarness();
    const mounted = await harness.mount('stuck', `${server.origin}/mcp`, {
      timeouts: { modernProbeMs: 300, legacyHandshakeMs: 600 },
    });
    const status = mounted.status();
    expect(status.state).toBe('failed');
    expect(status.failure).toMatch(
      /failed both handshakes: modern probe: .*did not answer server\/discover within 300 ms; legacy initialize: .*did not answer initialize within 600 ms/,
    );
    expect(harness.toolNames('stuck')).toEqual([]);
  });

  it(`falls back to initialize when server/discover lacks 2026-07-28`, async () => {
    const server = await startSessionServer('old-discover');
    harness = new HttpHarness();
    const mounted = await harness.mount('future', `${server.origin}/mcp`);
    const status = mounted.status();
    expect(status.state, status.failure).toBe('connected');
    expect(status.era).toBe('legacy');
    expect(mounted.client?.serverInfo.name).toBe('session-fixture-old-discover');
    expect(methods(server).slice(0, 2)).toEqual(['server/discover', 'initialize']);
    expect(harness.diagnostics.join('\n')).toContain(
      'server/discover lists supportedVersions 2099-01-01, not 2026-07-28',
    );
  });
});
