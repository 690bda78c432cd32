/**
 * input_required (2026-07-28 multi-round-trip) against a real SDK v2 server process, in both
 * eras: the modern connection gets `input_required` results and retries; the legacy one gets the
 * SDK shim's real server requests. Both are served by the same bridge gates, budget and asker.
 */
import { pathToFileURL } from 'node:url';
import { MCP_LIMITS } from '@clat/adapter-mcp';
import { ScriptedApprover, ScriptedAsker } from '@clat/kernel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BridgeHarness,
  createBridgeHarness,
  fixtureServer,
  ScriptedModel,
} from './harness.js';

let h: BridgeHarness;

beforeAll(async () => {
  h = await createBridgeHarness([
    fixtureServer('modern', 'rounds-server.mjs'),
    { ...fixtureServer('legacy', 'rounds-server.mjs'), eraHint: 'legacy' },
  ]);
});
afterAll(() => h.close());

describe.each(['modern', 'legacy'] as const)('%s era', (era) => {
  it('negotiated the era under test', () => {
    expect(h.servers.get(era)?.status()).toMatchObject({ state: 'connected', era });
  });

  it('serves elicitation, sampling and roots and completes the call', async () => {
    const model = new ScriptedModel();
    const asker = new ScriptedAsker('yes');
    const approver = new ScriptedApprover({ outcome: 'allow' });
    const { run, context } = h.beginRun({ mode: 'project-write', asker, approver, model });
    try {
      const seen = await h.callJson(`mcp_${era}_deploy`, { target: 'prod' }, context);
      expect(seen).toMatchObject({
        confirm: { action: 'accept', content: { ok: true } },
        summary: expect.stringContaining('summarise prod'),
        roots: [{ uri: pathToFileURL(h.projectRoot).href }],
      });
      // The server only reaches round three when its state came back unchanged each time.
      expect(seen).toMatchObject({ state: 'ok', tail: 'st2:{"nested":[1,2]}' });
      expect(asker.questions[0]?.question).toContain('Deploy prod?');
      expect(model.requests).toHaveLength(1);
      expect(run.usage().requests).toBe(1);
      expect(h.servers.get(era)?.status().roots).toMatchObject({ offered: true });
    } finally {
      run.end();
    }
  });

  it('asks every 2025-11-25 elicitation shape with its default and maps the answers back', async () => {
    const asker = new ScriptedAsker(
      'Grace', // name (default Ada)
      '37', // age (default 36)
      'no', // subscribed (default yes)
      'Blue', // color: titled single-select, answered by title
      { kind: 'answer', text: 'alpha, gamma', selected: ['alpha', 'gamma'] }, // tags
      '1, 3', // sizes: titled multi-select by number
      'yes', // newsletter: optional, no default (pre-filled "(skip)")
    );
    const { run, context } = h.beginRun({ mode: 'project-write', asker });
    try {
      const seen = await h.callJson(`mcp_${era}_profile`, {}, context);
      expect(seen).toEqual({
        action: 'accept',
        content: {
          name: 'Grace',
          age: 37,
          subscribed: false,
          color: 'b',
          tags: ['alpha', 'gamma'],
          sizes: ['s', 'l'],
          newsletter: true,
        },
      });
      const shown = asker.questions.map((q) => ({
        default: q.defaultAnswer,
        multi: q.multiSelect === true,
        options: q.options?.map((o) => o.label),
      }));
      expect(shown).toEqual([
        { default: 'Ada', multi: false, options: undefined },
        { default: '36', multi: false, options: undefined },
        { default: 'yes', multi: false, options: ['yes', 'no', '(skip)'] },
        { default: 'Green', multi: false, options: ['Red', 'Green', 'Blue', '(skip)'] },
        { default: 'beta', multi: true, options: ['alpha', 'beta', 'gamma'] },
        { default: undefined, multi: true, options: ['Small', 'Medium', 'Large'] },
        { default: '(skip)', multi: false, options: ['yes', 'no', '(skip)'] },
      ]);
      expect(asker.questions[0]?.question).toContain('Your profile');
    } finally {
      run.end();
    }
  });

  it('fails the call cleanly when the person is not there (headless)', async () => {
    const { run, context } = h.beginRun({ mode: 'project-write' });
    try {
      // Modern: the call fails with the reason. Legacy: the server got that reason as the
      // error of its elicitation/create and turned it into a tool error.
      const failure = await h.call(`mcp_${era}_deploy`, { target: 'prod' }, context).then(
        (result) => (result.isError === true ? result.content : 'completed'),
        (error: Error) => error.message,
      );
      expect(failure).toMatch(/no interactive frontend is attached.*headless/);
    } finally {
      run.end();
    }
  });
});

describe('modern only', () => {
  it(`stops a server that keeps asking after ${MCP_LIMITS.inputRounds} rounds with a clear error`, async () => {
    const { run, context } = h.beginRun({ mode: 'project-write' });
    try {
      await expect(h.call('mcp_modern_endless', {}, context)).rejects.toThrow(
        `MCP server "modern" still asked for input after ${MCP_LIMITS.inputRounds} rounds of tools/call endless; CLAT stopped retrying`,
      );
    } finally {
      run.end();
    }
  });

  it('answers roots without any frontend (no person needed)', async () => {
    const { run, context } = h.beginRun({ mode: 'project-write' });
    try {
      const seen = await h.callJson('mcp_modern_roots', {}, context);
      expect(seen).toEqual({
        roots: [{ uri: pathToFileURL(h.projectRoot).href, name: expect.any(String) }],
      });
    } finally {
      run.end();
    }
  });
});
