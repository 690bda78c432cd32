/**
 * A WASM plugin through the real `clat` binary starts its guest only when one of its tools is
 * called: the first start lists the tools and remembers them in the plugin's cache entry, later
 * commands register them from there (`clat tools` starts no guest), and `clat call` starts the
 * guest at the call. Anything the guest could list differently by (here: its directories) is a
 * miss, and the guest starts at mount again.
 */
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { prepareComponent, wasmCacheDir } from '@clat/adapter-wasm';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, useCliSandbox, WASM_COMPONENT, WASM_MANIFEST } from './support.js';

const HOOK = join(REPO_ROOT, 'test/fixtures/worker-spawn-hook.cjs');
const TOOL = 'wasm_wasm_summarize_word_count';
const GUEST_WORKER = 'CLAT-WORKER guest-worker.mjs';

let entryDir = '';
const sandbox = useCliSandbox(async () => {
  await sandbox.run(['trust']);
  // Transpiled ahead (as an earlier install would have): the test is about the start, not jco.
  entryDir = (
    await prepareComponent({ componentPath: WASM_COMPONENT, cacheDir: wasmCacheDir(sandbox.home) })
  ).dir;
  await writePlugins([]);
});

async function writePlugins(dirs: string[]): Promise<void> {
  await writeFile(
    join(sandbox.home, 'plugins.json'),
    JSON.stringify({ 'wasm-summarize': { manifest: WASM_MANIFEST, dirs } }),
  );
}

/** Runs `clat args` with the hook; its output and whether a guest worker started. */
async function clat(args: string[]) {
  const result = await sandbox.run(args, { env: { NODE_OPTIONS: `--require=${HOOK}` } });
  expect(result.code, result.stderr).toBe(0);
  return { ...result, guestStarted: result.stderr.includes(GUEST_WORKER) };
}

describe('a WASM plugin started at its first call', () => {
  it('lists its tools at the first start, then from its cache entry until a tool is called', async () => {
    const first = await clat(['tools', '--json']);
    expect(first.guestStarted).toBe(true);
    expect(first.stdout).toContain(TOOL);
    expect((await stat(join(entryDir, 'tools.json'))).mode & 0o777).toBe(0o600);

    const second = await clat(['tools', '--json']);
    expect(second.guestStarted).toBe(false);
    // The same tools, descriptions, schemas and effects as the guest itself listed.
    expect(second.stdout).toBe(first.stdout);
    const status = await clat(['mcp', 'status', '--json']);
    expect(status.guestStarted).toBe(false);
    expect(JSON.parse(status.stdout)).toMatchObject({
      servers: [{ name: 'wasm-summarize', state: 'connected', tools: 3 }],
    });

    const call = await clat(['call', TOOL, '{"text":"one two three"}', '--json']);
    expect(call.guestStarted).toBe(true);
    expect(JSON.parse(call.stdout)).toMatchObject({ structured: { words: 3 } });
  });

  it('starts the guest at mount again when what it could list by changes', async () => {
    expect((await clat(['tools'])).guestStarted).toBe(true);
    expect((await clat(['tools'])).guestStarted).toBe(false);
    const extra = join(sandbox.root, 'shared');
    await mkdir(extra);
    await writePlugins([extra]);
    expect((await clat(['tools'])).guestStarted).toBe(true);
    expect((await clat(['tools'])).guestStarted).toBe(false);
  });
});
