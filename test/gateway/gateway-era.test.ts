/**
 * `clat-gateway` shares `clat`'s era memory (`<clat home>/mcp-eras.json`): a legacy server costs
 * two spawns (a disposable probe, then the legacy process) the first time either host meets it,
 * and one afterwards in both. Before, the gateway had no era memory and probed on every start.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { execClat } from '../support/clat-bin.js';
import { type GatewayWorld, gatewayStdio, gatewayWorld } from './support.js';

const LEGACY = join(import.meta.dirname, '../fixtures/mcp-servers/legacy.mjs');

let world: GatewayWorld | undefined;
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

describe('clat-gateway era memory', () => {
  it('starts a known-legacy server once, whether the gateway or clat learned its era', async () => {
    world = await gatewayWorld();
    const w = world;
    const log = join(w.home, 'spawns.log');
    await writeFile(log, '');
    await writeFile(
      join(w.home, 'mcp.json'),
      JSON.stringify({
        old: { command: process.execPath, args: [LEGACY], env: { CLAT_FIXTURE_SPAWN_LOG: log } },
      }),
    );
    let seen = 0;
    const spawns = async () => {
      const count = (await readFile(log, 'utf8'))
        .split('\n')
        .filter((l) => l.includes('spawn')).length;
      const added = count - seen;
      seen = count;
      return added;
    };
    const listThroughGateway = async () => {
      // A client of one era: a client that negotiates may start the gateway twice.
      const client = new Client({ name: 'gateway-era-e2e', version: '0.0.0' });
      await client.connect(new StdioClientTransport(gatewayStdio(w, ['--mode', 'read-only'])));
      try {
        const { tools } = await client.listTools();
        return tools.map((tool) => tool.name);
      } finally {
        await client.close();
      }
    };

    expect(await listThroughGateway()).toContain('mcp_old_echo');
    expect(await spawns()).toBe(2);
    expect(await listThroughGateway()).toContain('mcp_old_echo');
    expect(await spawns()).toBe(1);
    // `clat` reads what the gateway remembered.
    const status = await execClat(['mcp', '--json'], { cwd: w.project, home: w.home });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout).servers[0]).toMatchObject({
      state: 'connected',
      era: 'legacy',
    });
    expect(await spawns()).toBe(1);
  });
});
