import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pidAlive } from '@clat/process';
import { afterEach, describe, expect, it } from 'vitest';
import { fixture, McpHarness, TEST_ROOT } from './support.js';

// Era negotiation over real stdio subprocesses: a dual-era server on the official SDK v2 stays
// modern in one process; a strict legacy server needs the disposable probe process.

let harness: McpHarness;
afterEach(async () => {
  const pids = harness.spawnedPids();
  await harness.close();
  expect(harness.survivors()).toEqual([]);
  for (const pid of pids) expect(pidAlive(pid)).toBe(false);
});

function spawnLog(file: string): string[][] {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => line.split(' '));
}

describe('era negotiation over stdio', () => {
  it('negotiates the dual-era SDK v2 fixture as modern in a single process', async () => {
    harness = new McpHarness();
    const log = join(await harness.home(), 'spawns.log');
    const { mounted, factory } = await harness.mount('dual', {
      ...fixture('dual-era.mjs'),
      env: { CLAT_FIXTURE_SPAWN_LOG: log },
    });
    const status = mounted.status();
    expect(status.state, status.failure).toBe('connected');
    expect(status.era).toBe('modern');
    expect(status.protocolVersion).toBe('2026-07-28');
    expect(mounted.client?.serverInfo.name).toBe('dual-era-fixture');
    // The probe process became the session: one spawn, by the factory's count and the server's.
    expect(factory.spawnedPids).toHaveLength(1);
    expect(spawnLog(log).filter(([, event]) => event === 'spawn')).toHaveLength(1);
    expect(mounted.client?.transportsOpened).toBe(1);

    expect(harness.toolNames('dual')).toEqual([
      'mcp_dual_add',
      'mcp_dual_echo',
      'mcp_dual_write_note',
    ]);
    expect((await harness.call('mcp_dual_add', { a: 20, b: 22 })).content).toBe('42');
    expect((await harness.call('mcp_dual_echo', { text: 'modern hello' })).content).toBe(
      'modern hello',
    );
    const effects = Object.fromEntries(harness.registry.list().map((t) => [t.name, t.effect]));
    expect(effects).toEqual({
      mcp_dual_add: 'destructive',
      mcp_dual_echo: 'external-read',
      mcp_dual_write_note: 'write',
    });
  });

  it('falls back to legacy on a fresh process when the strict legacy fixture exits on the probe', async () => {
    harness = new McpHarness();
    const log = join(await harness.home(), 'spawns.log');
    const { mounted, factory } = await harness.mount('legacy', {
      ...fixture('legacy.mjs'),
      env: { CLAT_FIXTURE_SPAWN_LOG: log, FIXTURE_VALUE: 'from-config' },
    });
    const status = mounted.status();
    expect(status.state, status.failure).toBe('connected');
    expect(status.era).toBe('legacy');
    expect(status.protocolVersion).toBe('2025-11-25');

    // Two processes: the probe saw server/discover and died; the fresh one saw initialize first.
    const [probePid, sessionPid] = factory.spawnedPids;
    expect(factory.spawnedPids).toHaveLength(2);
    const events = spawnLog(log);
    expect(events).toContainEqual([String(probePid), 'first', 'server/discover']);
    expect(events).toContainEqual([String(sessionPid), 'first', 'initialize']);
    expect(pidAlive(probePid as number)).toBe(false);
    expect(pidAlive(sessionPid as number)).toBe(true);

    // Four tools/list pages, every effect mapped, none claims native read.
    const effects = Object.fromEntries(harness.registry.list().map((t) => [t.name, t.effect]));
    expect(effects).toEqual({
      mcp_legacy_add: 'destructive',
      mcp_legacy_big: 'external-read',
      mcp_legacy_echo: 'external-read',
      mcp_legacy_fetch_status: 'network',
      mcp_legacy_sleep: 'external-read',
      mcp_legacy_where: 'external-read',
      mcp_legacy_write_note: 'write',
    });
    expect((await harness.call('mcp_legacy_add', { a: 2, b: 3 })).content).toBe('5');

    // cwd is the CLAT home, never the project directory; env reaches the server.
    const where = JSON.parse((await harness.call('mcp_legacy_where')).content) as {
      cwd: string;
      fixtureEnv: string;
    };
    expect(where.cwd).toBe(await harness.home());
    expect(where.cwd).not.toBe(TEST_ROOT);
    expect(where.fixtureEnv).toBe('from-config');
  });

  it('the lenient legacy fixture answers the probe with -32601 and still gets a fresh process', async () => {
    harness = new McpHarness();
    const { mounted, factory } = await harness.mount('lenient', {
      ...fixture('legacy.mjs'),
      env: { FIXTURE_LENIENT: '1' },
    });
    expect(mounted.status().era).toBe('legacy');
    expect(factory.spawnedPids).toHaveLength(2);
    expect(pidAlive(factory.spawnedPids[0] as number)).toBe(false);
  });

  it('falls back to initialize on a fresh process when server/discover lacks 2026-07-28', async () => {
    harness = new McpHarness();
    const log = join(await harness.home(), 'spawns.log');
    const { mounted, factory } = await harness.mount('future', {
      ...fixture('future-discover.mjs'),
      env: { CLAT_FIXTURE_SPAWN_LOG: log },
    });
    const status = mounted.status();
    expect(status.state, status.failure).toBe('connected');
    expect(status.era).toBe('legacy');
    expect(mounted.client?.serverInfo.name).toBe('future-discover-fixture');
    // The probe process answered discover and was discarded; the fresh one saw initialize first.
    const [probePid, sessionPid] = factory.spawnedPids;
    expect(factory.spawnedPids).toHaveLength(2);
    const events = spawnLog(log);
    expect(events).toContainEqual([String(probePid), 'first', 'server/discover']);
    expect(events).toContainEqual([String(sessionPid), 'first', 'initialize']);
    expect(harness.diagnostics.join('\n')).toContain(
      'server/discover lists supportedVersions 2099-01-01, not 2026-07-28',
    );
    expect((await harness.call('mcp_future_echo', { text: 'hi' })).content).toBe('future: hi');
  });
});
