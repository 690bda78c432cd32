/**
 * One run, two adapters: an MCP server over stdio and a WASM component share the run's 64
 * sampling requests, and the WASM guest's host tools are the same fenced native tools.
 */
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { LIMITS } from '@clat/kernel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BridgeHarness,
  createBridgeHarness,
  fixtureServer,
  ScriptedModel,
} from './harness.js';

const require = createRequire(import.meta.url);
let h: BridgeHarness;

beforeAll(async () => {
  h = await createBridgeHarness([fixtureServer('host-client', 'host-client-server.mjs')], {
    wasm: [
      { name: 'faults', componentPath: require.resolve('@clat-examples/wasm-faults/faults.wasm') },
    ],
    async setupProject(root) {
      await writeFile(`${root}/README.md`, 'shared readme\n');
    },
  });
}, 120_000);
afterAll(async () => {
  await h?.close();
});

describe('sampling budget shared across MCP and WASM', () => {
  it('counts WASM sampling against the same 64 requests of the run', async () => {
    const model = new ScriptedModel();
    const { run, context } = h.beginRun({ mode: 'full-access', model });
    try {
      const mcp = await h.callJson<{ counts: Record<string, number> }>(
        'mcp_host_client_flood_sampling',
        { n: LIMITS.samplingRequestsPerRun - 1 },
        context,
      );
      expect(mcp.counts).toEqual({ ok: LIMITS.samplingRequestsPerRun - 1 });
      // The WASM guest's one sampling request takes the 64th slot…
      const wasm = await h.call('wasm_faults_host_all', { path: 'README.md' }, context);
      const report = JSON.parse(wasm.content) as Record<string, { ok?: unknown; err?: string }>;
      expect(report.sampling?.ok).toEqual(expect.stringContaining('echo('));
      expect(report.readFile?.ok).toBeDefined();
      expect(JSON.stringify(report.readFile)).toContain('shared readme');
      // …so the MCP server's next one is over the run budget.
      const after = await h.callJson<{ ok: boolean; code?: string }>(
        'mcp_host_client_sample',
        {},
        context,
      );
      expect(after).toMatchObject({ ok: false, code: 'SAMPLING_BUDGET_EXHAUSTED' });
      expect(run.usage().requests).toBe(LIMITS.samplingRequestsPerRun);
      expect(model.requests).toHaveLength(LIMITS.samplingRequestsPerRun);
    } finally {
      run.end();
    }
  });

  it('fences the WASM guest host tools like any plugin', async () => {
    const { run, context } = h.beginRun({ mode: 'full-access', model: new ScriptedModel() });
    try {
      const wasm = await h.call('wasm_faults_host_all', { path: '../outside.txt' }, context);
      const report = JSON.parse(wasm.content) as Record<string, { ok?: unknown; err?: string }>;
      expect(report.readFile?.err).toMatch(/outside the project|HOST_PATH_OUTSIDE_PROJECT/);
    } finally {
      run.end();
    }
  });
});
