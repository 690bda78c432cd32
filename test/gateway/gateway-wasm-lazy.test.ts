/**
 * `clat-gateway` starts a WASM plugin's guest at the first call, as `clat` does: a gateway that
 * finds the tools the guest listed before (remembered by an earlier gateway) lists them without
 * starting it, and the guest starts when an MCP client calls one of them.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { prepareComponent, wasmCacheDir } from '@clat/adapter-wasm';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO } from '../dsh/harness.js';
import {
  type GatewayWorld,
  gatewayStdio,
  gatewayWorld,
  WASM_COMPONENT,
  WASM_MANIFEST,
} from './support.js';

const HOOK = join(REPO, 'test/fixtures/worker-spawn-hook.cjs');
const WASM = 'wasm_wasm_summarize_word_count';
const GUEST_WORKER = 'CLAT-WORKER guest-worker.mjs';

let world: GatewayWorld | undefined;
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

/** Connects an SDK client to a new gateway (with the worker hook) and collects its stderr. */
async function connect(w: GatewayWorld) {
  const params = gatewayStdio(w);
  const transport = new StdioClientTransport({
    ...params,
    env: { ...params.env, NODE_OPTIONS: `--require=${HOOK}` },
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'gateway-wasm-lazy', version: '0.0.0' });
  await client.connect(transport);
  return {
    client,
    /**
     * Whether the gateway started a guest worker, as its stderr has said within `ms`: stderr and
     * the answers on stdout are two pipes, so a line may arrive after the answer that follows it.
     */
    async guestStarted(ms = 2_000): Promise<boolean> {
      for (const until = Date.now() + ms; Date.now() < until; ) {
        if (stderr.includes(GUEST_WORKER)) return true;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return stderr.includes(GUEST_WORKER);
    },
  };
}

describe('clat-gateway and a WASM plugin', () => {
  it('lists remembered tools without starting the guest, and starts it at the first call', async () => {
    world = await gatewayWorld();
    const w = world;
    await writeFile(join(w.home, 'mcp.json'), '{}\n');
    await prepareComponent({ componentPath: WASM_COMPONENT, cacheDir: wasmCacheDir(w.home) });
    await writeFile(
      join(w.home, 'plugins.json'),
      JSON.stringify({ 'wasm-summarize': { manifest: WASM_MANIFEST } }),
    );

    const first = await connect(w);
    const listed = (await first.client.listTools()).tools;
    expect(listed.map((tool) => tool.name)).toContain(WASM);
    expect(await first.guestStarted()).toBe(true);
    await first.client.close();

    const second = await connect(w);
    expect((await second.client.listTools()).tools).toEqual(listed);
    // Given time to show up, had a guest started.
    expect(await second.guestStarted(500)).toBe(false);
    const counted = await second.client.callTool({ name: WASM, arguments: { text: 'a b c d' } });
    const text = (counted.content as Array<{ text: string }>)[0]?.text ?? '';
    expect(JSON.parse(text)).toEqual({ words: 4 });
    expect(await second.guestStarted()).toBe(true);
    await second.client.close();
  });
});
