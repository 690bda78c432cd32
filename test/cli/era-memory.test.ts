/**
 * The negotiated era is remembered per server configuration: a legacy server costs two spawns
 * (disposable probe, fresh legacy process) on its first start and one afterwards; a changed
 * configuration or a failed remembered handshake probes again. Through the real binary.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_FIXTURES, parseJsonOutput, STDIO_FIXTURES, useCliSandbox } from './support.js';

let spawnLog: string;

const sandbox = useCliSandbox(async () => {
  spawnLog = join(sandbox.root, 'spawns.log');
  await writeFile(spawnLog, '');
});

/** Spawns logged since the last call. */
let seen = 0;
async function newSpawns(): Promise<number> {
  const lines = (await readFile(spawnLog, 'utf8'))
    .split('\n')
    .filter((line) => line.includes('spawn'));
  const count = lines.length - seen;
  seen = lines.length;
  return count;
}

interface Status {
  servers: { name: string; state: string; era?: string }[];
}

async function status(): Promise<Status> {
  const result = await sandbox.run(['mcp', '--json', '--trust'], { timeoutMs: 60_000 });
  expect(result.code, result.stderr).toBe(0);
  return parseJsonOutput<Status>(result);
}

describe('remembered era', () => {
  it('starts a known-legacy server once, and probes again when its configuration changes', async () => {
    seen = 0;
    const legacy = {
      ...sandbox.node(join(STDIO_FIXTURES, 'legacy.mjs')),
      env: { CLAT_FIXTURE_SPAWN_LOG: spawnLog },
    };
    await sandbox.writeMcp({ old: legacy });
    expect((await status()).servers[0]).toMatchObject({ state: 'connected', era: 'legacy' });
    expect(await newSpawns()).toBe(2);
    expect((await status()).servers[0]).toMatchObject({ state: 'connected', era: 'legacy' });
    expect(await newSpawns()).toBe(1);
    const eras = JSON.parse(await readFile(join(sandbox.home, 'mcp-eras.json'), 'utf8'));
    expect(Object.values(eras.servers)).toMatchObject([
      { era: 'legacy', serverVersion: expect.any(String) },
    ]);

    await sandbox.writeMcp({ old: { ...legacy, args: [...legacy.args, '--changed'] } });
    await status();
    expect(await newSpawns()).toBe(2);
  });

  it('probes a fresh process when a remembered legacy server turned modern', async () => {
    seen = 0;
    const switchFile = join(sandbox.root, 'era');
    await writeFile(switchFile, 'legacy');
    await sandbox.writeMcp({
      flip: {
        ...sandbox.node(join(CLI_FIXTURES, 'era-switch.mjs')),
        env: { ERA_SWITCH_FILE: switchFile, CLAT_FIXTURE_SPAWN_LOG: spawnLog },
      },
    });
    expect((await status()).servers[0]).toMatchObject({ era: 'legacy' });
    await writeFile(switchFile, 'modern');
    const now = await status();
    expect(now.servers[0]).toMatchObject({ state: 'connected', era: 'modern' });
    // The record is gone: the next start probes (modern answers the probe at once).
    const eras = JSON.parse(await readFile(join(sandbox.home, 'mcp-eras.json'), 'utf8'));
    expect(Object.keys(eras.servers)).toEqual([]);
  });
});
