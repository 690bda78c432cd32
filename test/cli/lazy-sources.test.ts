/**
 * The mount sources load on demand through the real `clat` binary: `clat tools` with one stdio
 * server loads neither the WASM host nor the package store; a plugins.json loads only the WASM
 * host; a store registry only the package store (issue 19's startup budget, issue 13's sources).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_FIXTURES, useCliSandbox } from './support.js';

const HOOK = join(CLI_FIXTURES, 'loaded-sources-hook.cjs');

const sandbox = useCliSandbox(async () => {
  await sandbox.run(['trust']);
  await sandbox.writeMcp({ mcpServers: { notes: sandbox.notesServer() } });
});

/** `clat tools` with the hook preloaded: the packages it loaded, and its tool names. */
async function toolsLoading(): Promise<{ loaded: string[]; stdout: string }> {
  const result = await sandbox.run(['tools'], { env: { NODE_OPTIONS: `--require=${HOOK}` } });
  expect(result.code, result.stderr).toBe(0);
  expect(result.stderr).not.toContain('CLAT-HOOK-MISSING');
  const loaded = new Set(
    result.stderr
      .split('\n')
      .filter((line) => line.startsWith('CLAT-LOADED '))
      .map((line) => line.slice('CLAT-LOADED '.length)),
  );
  return { loaded: [...loaded].sort(), stdout: result.stdout };
}

describe('lazy mount sources', () => {
  it('loads a source package only when its file exists', async () => {
    const bare = await toolsLoading();
    expect(bare.stdout).toContain('mcp_notes_add_note');
    expect(bare.loaded).toEqual([]);

    await writeFile(join(sandbox.home, 'plugins.json'), '{}\n');
    expect((await toolsLoading()).loaded).toEqual(['adapter-wasm']);

    await mkdir(join(sandbox.home, 'plugin-store'), { recursive: true });
    await writeFile(
      join(sandbox.home, 'plugin-store', 'registry.json'),
      `${JSON.stringify({ unit: { name: 'clat-plugin-registry', version: 1 }, packages: {} })}\n`,
    );
    expect((await toolsLoading()).loaded).toEqual(['adapter-wasm', 'packaging']);
  });
});
