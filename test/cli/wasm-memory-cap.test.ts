/**
 * The WASM memory cap through the real `clat` binary: the transpile cache stores the guest's core
 * module with its memory maximum written wide, the load writes the cap into it in place, and a
 * guest that allocates without end runs out of memory at the cap (a tool error, not a crash).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LIMITS } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, useCliSandbox } from './support.js';

const FAULTS = join(REPO_ROOT, 'plugins/wasm-faults/dist/faults.wasm');

const sandbox = useCliSandbox(async () => {
  await sandbox.run(['trust']);
  await writeFile(join(sandbox.home, 'plugins.json'), JSON.stringify({ faults: { path: FAULTS } }));
});

describe('the WASM memory cap in the CLI', () => {
  it('stops a guest that allocates without end at the cap, first start and cached start alike', async () => {
    // The first start transpiles into the cache; the second loads the cached, widened module.
    for (const start of ['first', 'cached']) {
      const result = await sandbox.run(['call', 'wasm_faults_bomb', '{}', '--json']);
      expect(result.code, start).toBe(1);
      expect(JSON.parse(result.stdout), start).toMatchObject({ isError: true });
      expect(JSON.parse(result.stdout).content, start).toContain(
        `ran out of memory (cap ${LIMITS.wasmMemoryBytes} bytes)`,
      );
    }
    const echo = await sandbox.run(['call', 'wasm_faults_echo', '{"n":1}', '--json']);
    expect(echo.code).toBe(0);
    expect(JSON.parse(echo.stdout)).toMatchObject({ structured: { args: { n: 1 }, served: 1 } });
  });
});
