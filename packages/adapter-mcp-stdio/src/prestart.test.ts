import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JsonRpcMessage, McpServerConfig } from '@clat/adapter-mcp';
import { Redactor } from '@clat/kernel';
import { pidAlive } from '@clat/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStdioTransportError, StdioTransportErrorCode } from './errors.js';
import { PrestartedServers } from './prestart.js';
import type { StdioTransport } from './stdio-transport.js';
import { stdioTransport } from './stdio-transport-provider.js';

const PEER = fileURLToPath(new URL('./test-support/peer.mjs', import.meta.url));
let home: string;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'clat-prestart-'));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

function server(args: string[], extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return {
    transport: 'stdio',
    name: 'peer',
    origin: 'user',
    command: process.execPath,
    args,
    env: { CLAT_PEER_VALUE: 'configured' },
    ...extra,
  } as McpServerConfig;
}

function prestart(entry: McpServerConfig): PrestartedServers {
  if (entry.transport !== 'stdio') throw new Error('stdio only');
  const set = new PrestartedServers();
  set.start({ ...entry, defaultCwd: home });
  return set;
}

async function ask(transport: StdioTransport, method: string, params = {}): Promise<unknown> {
  const reply = new Promise<JsonRpcMessage>((resolve) => {
    transport.onmessage = resolve;
  });
  await transport.send({ jsonrpc: '2.0', id: 1, method, params });
  return ((await reply) as { result: unknown }).result;
}

/** Pids of processes whose command line contains `needle`. */
function pidsOf(needle: string): number[] {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(needle))
    .map((line) => Number.parseInt(line, 10));
}

async function waitGone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && pidAlive(pid); i++) await new Promise((r) => setTimeout(r, 20));
  return !pidAlive(pid);
}

describe('PrestartedServers with the stdio transport provider', () => {
  it('hands the prestarted process to the first transport only: one spawn, same process', async () => {
    const entry = server([PEER, 'echo']);
    const set = prestart(entry);
    await set.spawned();
    const provider = stdioTransport({ defaultCwd: home, prestarted: set });
    const factory = provider.factory(entry, { redactor: new Redactor() });
    const first = factory.open() as StdioTransport;
    await first.start();
    const second = factory.open() as StdioTransport;
    await second.start();
    try {
      expect(set.waiting()).toEqual([]);
      // The adopted process was spawned by the prestart: the factory spawned only the second.
      expect(factory.spawnedPids).toEqual([first.pid, second.pid]);
      expect(first.pid).not.toBe(second.pid);
      expect(await ask(first, 'env', { name: 'CLAT_PEER_VALUE' })).toEqual({ value: 'configured' });
      expect(await ask(first, 'cwd')).toEqual({ cwd: home });
    } finally {
      await first.close();
      await second.close();
      await set.close();
    }
    expect(pidAlive(first.pid as number)).toBe(false);
  });

  it('tears a prestart down instead of adopting it when the validated entry launches something else', async () => {
    const set = prestart(server([PEER, 'echo', '--prestart-mismatch']));
    await set.spawned();
    const [prestartedPid] = pidsOf('--prestart-mismatch');
    expect(prestartedPid).toBeDefined();
    const changed = server([PEER, 'echo', '--changed']);
    const provider = stdioTransport({ defaultCwd: home, prestarted: set });
    const transport = provider
      .factory(changed, { redactor: new Redactor() })
      .open() as StdioTransport;
    expect(set.waiting()).toEqual([]);
    await transport.start();
    try {
      expect(transport.pid).not.toBe(prestartedPid);
      expect(await ask(transport, 'ping', { n: 1 })).toEqual({ echo: { n: 1 } });
    } finally {
      await transport.close();
    }
    await set.close();
    expect(await waitGone(prestartedPid as number)).toBe(true);
  });

  it('closes every unclaimed prestart with the transport teardown', async () => {
    const set = prestart(server([PEER, 'echo', '--prestart-unclaimed']));
    await set.spawned();
    // The peer's pid, from the process table: the prestart has no transport to ask.
    const pids = pidsOf('--prestart-unclaimed');
    expect(pids.length).toBeGreaterThan(0);
    await set.close();
    for (const pid of pids) expect(await waitGone(pid)).toBe(true);
    // A claim after close finds nothing, so the provider spawns as usual.
    expect(set.claim({ name: 'peer', command: process.execPath }, home)).toBeUndefined();
  });

  it('leaves a failed prestart to the transport, which reports the spawn failure as always', async () => {
    const entry = server([], { command: join(home, 'no-such-server') } as Partial<McpServerConfig>);
    const set = prestart(entry);
    await set.spawned();
    const provider = stdioTransport({ defaultCwd: home, prestarted: set });
    const transport = provider.factory(entry, { redactor: new Redactor() }).open();
    const error = await transport.start().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(isStdioTransportError(error)).toBe(true);
    expect((error as { code: string }).code).toBe(StdioTransportErrorCode.STDIO_SPAWN_FAILED);
    await set.close();
  });

  it('reports the exit of a prestarted server that died before it was adopted', async () => {
    const entry = server([
      '-e',
      'process.stderr.write("boom\\n"); process.exit(3)',
      '--',
      '--died-early',
    ]);
    const set = prestart(entry);
    await set.spawned();
    // Dead before adoption, however long its start took: a zombie's command line is gone.
    for (let i = 0; i < 250 && pidsOf('--died-early').length > 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(pidsOf('--died-early')).toEqual([]);
    const provider = stdioTransport({ defaultCwd: home, prestarted: set });
    const transport = provider.factory(entry, { redactor: new Redactor() }).open();
    const closed = new Promise<Error | undefined>((resolve) => {
      transport.onclose = resolve;
    });
    await transport.start();
    const reason = await closed;
    expect(reason?.message).toContain('exited with code 3');
    expect(reason?.message).toContain('boom');
    await set.close();
  });
});
