/**
 * Issue 22 item 7: `clat call --json` on a hostile result nested 100,000 deep (the faults guest,
 * built with the guest SDK) ends with a clear error instead of a stack overflow, and a result
 * within the stated depth limit prints exactly.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { prepareComponent, wasmCacheDir } from '@clat/adapter-wasm';
import { LIMITS } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, useCliSandbox } from './support.js';

const FAULTS = join(REPO_ROOT, 'plugins/wasm-faults/dist/faults.wasm');

const sandbox = useCliSandbox(async () => {
  await sandbox.run(['trust']);
  await prepareComponent({ componentPath: FAULTS, cacheDir: wasmCacheDir(sandbox.home) });
  await writeFile(join(sandbox.home, 'plugins.json'), JSON.stringify({ faults: { path: FAULTS } }));
});

describe('clat call --json on deeply nested results', () => {
  it('a result nested 100,000 deep is refused with the stated limit, not a stack overflow', async () => {
    const result = await sandbox.run(['call', 'wasm_faults_deep', '{"depth":100000}', '--json']);
    expect(result.stderr).not.toContain('Maximum call stack');
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({
      content: `tool wasm_faults_deep returned JSON nested more than ${LIMITS.toolResultDepth} levels deep (the limit); its result was refused`,
      isError: true,
    });
  });

  it('a result within the limit prints exactly', async () => {
    const depth = LIMITS.toolResultDepth;
    const text = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const result = await sandbox.run(['call', 'wasm_faults_deep', `{"depth":${depth}}`, '--json']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `${JSON.stringify({ content: text, structured: JSON.parse(text) }, null, 2)}\n`,
    );
  });
});
