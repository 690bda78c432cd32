/**
 * Sensitive WASM settings through the real `clat` binary: a plugins.json entry marks `license`
 * sensitive, the guest echoes its whole config into its output and fails to start, and both
 * `clat mcp` views show the echo with the secret redacted by the host and the model name intact.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { prepareComponent, wasmCacheDir } from '@clat/adapter-wasm';
import type { MountSummary } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, useCliSandbox } from './support.js';

const FAULTS = join(REPO_ROOT, 'plugins/wasm-faults/dist/faults.wasm');
/** No key-shaped pattern catches it: only the `sensitive` marking can. */
const SECRET = 'zebra-umbrella-4471';
const MODEL = 'gpt-4o';
const ECHO = `starting with config {"license":"[REDACTED]","model":"${MODEL}","fail_start":true}`;

const sandbox = useCliSandbox(async () => {
  await sandbox.run(['trust']);
  await prepareComponent({ componentPath: FAULTS, cacheDir: wasmCacheDir(sandbox.home) });
  await writeFile(
    join(sandbox.home, 'plugins.json'),
    JSON.stringify({
      leaky: {
        path: FAULTS,
        config: { license: SECRET, model: MODEL, fail_start: true },
        sensitive: ['license'],
      },
      typo: { path: FAULTS, config: { license: SECRET }, sensitive: ['licence'] },
    }),
  );
});

describe('sensitive WASM settings in clat mcp', () => {
  it('the text view shows the echoed config with the sensitive value redacted, the model kept', async () => {
    const result = await sandbox.run(['mcp']);
    expect(result.stdout).toMatch(/leaky\s+wasm\s+failed/);
    expect(result.stdout).toContain(`        | ${ECHO}`);
    // The entry that names a key its config lacks is skipped, naming file, plugin and key.
    expect(result.stdout).toContain(
      `${join(sandbox.home, 'plugins.json')}: plugin "typo": "sensitive" names "licence", which is not a key of "config" (keys: "license")`,
    );
    expect(`${result.stdout}${result.stderr}`).not.toContain(SECRET);
  });

  it('the JSON view carries the same redacted texts in the host status shape', async () => {
    const result = await sandbox.run(['mcp', '--json']);
    expect(result.stdout).not.toContain(SECRET);
    const summary = JSON.parse(result.stdout) as MountSummary & { configIssues: string[] };
    const leaky = summary.servers.find((server) => server.name === 'leaky');
    expect(leaky).toMatchObject({
      origin: 'plugins.json',
      transport: 'wasm',
      target: FAULTS,
      state: 'failed',
      protocolVersion: 'clat-wit/0.1.0',
      tools: 0,
    });
    expect(leaky?.stderrTail).toContain(ECHO);
    expect(leaky?.failure).toContain('[WASM_START_FAILED]');
    expect(summary.servers.map((server) => server.name)).toEqual(['leaky']);
    expect(summary.configIssues).toEqual([
      expect.stringContaining('plugin "typo": "sensitive" names "licence"'),
    ]);
  });
});
