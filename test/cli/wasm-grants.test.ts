/**
 * WASM write grants through the real `clat` binary: the mount reads ~/.clat/plugin-grants.json,
 * and a corrupt file leaves the plugin mounted read-only with the reason shown in `/mcp`.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { prepareComponent, wasmCacheDir } from '@clat/adapter-wasm';
import { describe, expect, it } from 'vitest';
import { useCliSandbox, WASM_COMPONENT, WASM_MANIFEST } from './support.js';

const sandbox = useCliSandbox(async () => {
  await sandbox.run(['trust']);
  await prepareComponent({ componentPath: WASM_COMPONENT, cacheDir: wasmCacheDir(sandbox.home) });
  await writeFile(
    join(sandbox.home, 'plugins.json'),
    JSON.stringify({ 'wasm-summarize': { manifest: WASM_MANIFEST } }),
  );
});

describe('WASM write grants in the CLI', () => {
  it('a corrupt plugin-grants.json keeps the plugin mounted and says why no grant applies', async () => {
    await writeFile(join(sandbox.home, 'plugin-grants.json'), '{ not json');
    const result = await sandbox.run(['mcp']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/wasm-summarize\s+wasm\s+connected/);
    expect(result.stdout).toContain('plugin-grants.json is not valid JSON; no write grants apply');
  });

  it('a plugins.json pin that disagrees with the manifest digest fails that plugin only', async () => {
    const pin = 'a'.repeat(64);
    await writeFile(
      join(sandbox.home, 'plugins.json'),
      JSON.stringify({ 'wasm-summarize': { manifest: WASM_MANIFEST, sha256: pin } }),
    );
    const result = await sandbox.run(['mcp']);
    expect(result.stdout).toMatch(/wasm-summarize\s+wasm\s+failed/);
    expect(result.stdout).toContain(`the plugins.json pin ${pin} disagrees with runtime.sha256`);
  });
});
