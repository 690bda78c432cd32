/**
 * V8 tiering of WASM guest code through the real `clat` binary (apps/clat bin-v8-flags.ts).
 * One-shot commands compile guest code with the baseline compiler only: the optimising
 * recompile that a guest's start sets off would otherwise hold the process at exit. The headless
 * agent turn keeps tiering. Each flag set keeps a glue code cache of its own, so alternating the
 * two never rewrites one. V8 reports each function it compiles with `--trace-wasm-compilation-times`.
 */
import { readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { prepareComponent, wasmCacheDir } from '@clat/adapter-wasm';
import { describe, expect, it } from 'vitest';
import { type FakeChatServer, fakeModelProvider, startFakeChatServer } from './chat-server.js';
import { useCliSandbox, WASM_COMPONENT, WASM_MANIFEST } from './support.js';

const TOOL = 'wasm_wasm_summarize_project_info';
const API_KEY = 'sk-e2e-provider-key-0123456789';
const TRACE = ['--trace-wasm-compilation-times'];

let entryDir = '';
let chat: FakeChatServer | undefined;
const sandbox = useCliSandbox(
  async () => {
    await sandbox.run(['trust']);
    entryDir = (
      await prepareComponent({
        componentPath: WASM_COMPONENT,
        cacheDir: wasmCacheDir(sandbox.home),
      })
    ).dir;
    await writeFile(
      join(sandbox.home, 'plugins.json'),
      JSON.stringify({ 'wasm-summarize': { manifest: WASM_MANIFEST } }),
    );
  },
  {
    teardown: async () => {
      await chat?.close();
      chat = undefined;
    },
  },
);

/** How many guest functions V8 compiled with each compiler, from its trace on stdout. */
function compiled(stdout: string): { liftoff: number; turbofan: number } {
  return {
    liftoff: stdout.match(/^Compiled function .* using Liftoff/gm)?.length ?? 0,
    turbofan: stdout.match(/^Compiled function .* using TurboFan/gm)?.length ?? 0,
  };
}

/** A model that calls the WASM tool once per `clat exec` turn, `turns` times. */
async function withModel(turns: number): Promise<void> {
  chat = await startFakeChatServer(
    Array.from({ length: turns }, () => [
      { toolCalls: [{ name: TOOL, arguments: {} }] },
      { text: 'The project is described.' },
    ]).flat(),
  );
  await sandbox.writeConfig({ provider: fakeModelProvider(chat.url, 'E2E_PROVIDER_KEY') });
}

const env = { E2E_PROVIDER_KEY: API_KEY };
const exec = (nodeArgs: string[] = []) =>
  sandbox.run(['exec', 'Describe the project', '--mode', 'full-access'], { env, nodeArgs });
const call = (nodeArgs: string[] = []) => sandbox.run(['call', TOOL, '--json'], { env, nodeArgs });

/** The entry's glue code caches: name to inode and mtime. */
async function glueCaches(): Promise<Map<string, string>> {
  const caches = new Map<string, string>();
  for (const name of await readdir(entryDir)) {
    if (!name.endsWith('.v8cache')) continue;
    const { ino, mtimeMs } = await stat(join(entryDir, name));
    caches.set(name, `${ino}:${mtimeMs}`);
  }
  return caches;
}

describe('WASM guest tiering in the CLI', () => {
  it('clat call runs the guest on the baseline compiler; a headless agent turn tiers it up', async () => {
    const once = await call(TRACE);
    expect(once.code, once.stderr).toBe(0);
    const oneShot = compiled(once.stdout);
    // The trace is on: the guest's start compiled many functions, none of them optimised.
    expect(oneShot.liftoff).toBeGreaterThan(100);
    expect(oneShot.turbofan).toBe(0);

    await withModel(1);
    const turn = await exec(TRACE);
    expect(turn.code, turn.stderr).toBe(0);
    expect(turn.stdout).toContain('The project is described.');
    expect(compiled(turn.stdout).turbofan).toBeGreaterThan(0);
  });

  it('one-shot commands and agent turns each keep their own glue code cache, and neither rewrites it', async () => {
    await withModel(2);
    expect((await call()).code).toBe(0);
    expect((await exec()).code).toBe(0);
    const both = await glueCaches();
    expect([...both.keys()]).toHaveLength(2);
    // Each again, in the same order: both caches are taken as they are.
    expect((await call()).code).toBe(0);
    expect((await exec()).code).toBe(0);
    expect(await glueCaches()).toEqual(both);
  });
});
