import { pathToFileURL } from 'node:url';
import type { UserAnswer, UserQuestion } from '@clat/kernel';
import { ScriptedApprover, ScriptedAsker } from '@clat/kernel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BridgeHarness,
  createBridgeHarness,
  ScriptedModel,
  serverEverythingEntry,
} from './harness.js';

let h: BridgeHarness;
const opened: string[] = [];

beforeAll(async () => {
  h = await createBridgeHarness(
    [{ name: 'everything', command: process.execPath, args: [serverEverythingEntry(), 'stdio'] }],
    {
      openUrl: async (url) => {
        opened.push(url);
        return true;
      },
    },
  );
});
afterAll(() => h.close());

describe('server-everything through the PluginHostBridge', () => {
  it('mounts with its sampling and elicitation tools advertised', () => {
    const status = h.servers.get('everything')?.status();
    expect(status).toMatchObject({ state: 'connected' });
    const names = h.registry.list().map((tool) => tool.name);
    expect(names).toContain('mcp_everything_trigger_sampling_request');
    expect(names).toContain('mcp_everything_trigger_elicitation_request');
    // CLAT advertises URL-mode elicitation and roots, so the server offers those tools too.
    expect(names).toContain('mcp_everything_trigger_url_elicitation');
    expect(names).toContain('mcp_everything_get_roots_list');
  });

  it('answers roots/list with the project root as a file URI', async () => {
    const { run, context } = h.beginRun({ mode: 'project-write' });
    try {
      const result = await h.call('mcp_everything_get_roots_list', {}, context);
      expect(result.content).toContain(`URI: ${pathToFileURL(h.projectRoot).href}`);
      expect(h.servers.get('everything')?.status().roots?.requests).toBeGreaterThanOrEqual(1);
    } finally {
      run.end();
    }
  });

  it('opens a URL-mode elicitation URL only after consent, and never headless', async () => {
    const url = 'https://example.com/authorize?state=e2e';
    const declining = new ScriptedAsker('decline');
    const first = h.beginRun({ mode: 'full-access', asker: declining });
    try {
      const result = await h.call('mcp_everything_trigger_url_elicitation', { url }, first.context);
      expect(result.content).toContain('User declined to open the URL');
      expect(declining.questions[0]?.question).toContain(`URL: ${url}`);
      expect(declining.questions[0]?.question).toContain('Host: example.com');
      expect(opened).toEqual([]);
    } finally {
      first.run.end();
    }
    const headless = h.beginRun({ mode: 'full-access' });
    try {
      const result = await h.call(
        'mcp_everything_trigger_url_elicitation',
        { url },
        headless.context,
      );
      expect(result.content).toContain('User declined to open the URL');
      expect(opened).toEqual([]);
    } finally {
      headless.run.end();
    }
    const accepting = new ScriptedAsker('accept');
    const last = h.beginRun({ mode: 'full-access', asker: accepting });
    try {
      const result = await h.call('mcp_everything_trigger_url_elicitation', { url }, last.context);
      expect(result.content).toContain('User completed the URL elicitation flow');
      expect(opened).toEqual([url]);
    } finally {
      last.run.end();
    }
  });

  it('serves trigger-sampling-request with the session model after approval', async () => {
    const model = new ScriptedModel();
    const approver = new ScriptedApprover({ outcome: 'allow' });
    const { run, context } = h.beginRun({ mode: 'project-write', approver, model });
    try {
      const result = await h.call(
        'mcp_everything_trigger_sampling_request',
        { prompt: 'what is 2+2?', maxTokens: 50 },
        context,
      );
      expect(result.isError).toBeUndefined();
      expect(result.content).toContain('scripted-1');
      expect(result.content).toContain('echo(');
      expect(model.requests).toHaveLength(1);
      expect(model.requests[0]).toMatchObject({
        system: 'You are a helpful test server.',
        maxTokens: 50,
      });
      expect(model.requests[0]?.messages[0]?.text).toContain('what is 2+2?');
      // The tool itself is `write` (allowed in project-write); only sampling asked, with the
      // complete outbound payload.
      expect(approver.requests).toHaveLength(1);
      expect(approver.requests[0]).toMatchObject({
        tool: 'mcp:everything:sampling',
        effect: 'execute',
        arguments: {
          systemPrompt: 'You are a helpful test server.',
          messages: [
            { role: 'user', text: 'Resource trigger-sampling-request context: what is 2+2?' },
          ],
        },
      });
      expect(run.usage().requests).toBe(1);
    } finally {
      run.end();
    }
  });

  it('refuses sampling when the user denies it, and the server sees the error', async () => {
    const model = new ScriptedModel();
    const approver = new ScriptedApprover((request) =>
      request.tool.includes('sampling')
        ? { outcome: 'deny', reason: 'not now' }
        : { outcome: 'allow' },
    );
    const { run, context } = h.beginRun({ mode: 'project-write', approver, model });
    try {
      const result = await h.call(
        'mcp_everything_trigger_sampling_request',
        { prompt: 'no' },
        context,
      );
      expect(result.isError).toBe(true);
      expect(result.content).toMatch(/not approved|not now/);
      expect(model.requests).toHaveLength(0);
    } finally {
      run.end();
    }
  });

  it('visits the URLs a -32042 refusal lists, with consent, then retries the call once', async () => {
    opened.length = 0;
    const url = 'https://example.com/after-prerequisite';
    const asker = new ScriptedAsker('accept', 'accept');
    const { run, context } = h.beginRun({ mode: 'full-access', asker });
    try {
      const result = await h.call(
        'mcp_everything_trigger_url_elicitation',
        { url, errorPath: true },
        context,
      );
      expect(result.content).toContain('User completed the URL elicitation flow');
      // The prerequisite from the error, then the call's own URL on the retry.
      expect(opened).toEqual(['https://modelcontextprotocol.io/', url]);
      expect(asker.questions[0]?.question).toContain('Host: modelcontextprotocol.io');
    } finally {
      run.end();
    }
    const declining = new ScriptedAsker('decline');
    const second = h.beginRun({ mode: 'full-access', asker: declining });
    try {
      await expect(
        h.call(
          'mcp_everything_trigger_url_elicitation',
          { url: 'https://example.com/other', errorPath: true },
          second.context,
        ),
      ).rejects.toThrow(
        'MCP server "everything" requires visiting https://modelcontextprotocol.io before tools/call trigger-url-elicitation, and it was not accepted',
      );
      expect(opened).toHaveLength(2);
    } finally {
      second.run.end();
    }
  });

  it('asks its whole 2025-11-25 form (multi-selects, titled enums) and returns every default', async () => {
    const keepDefault = (question: UserQuestion): UserAnswer => ({
      kind: 'answer',
      text:
        question.defaultAnswer ??
        (question.options?.some((o) => o.label === '(skip)') === true ? '(skip)' : ''),
    });
    const asker = new ScriptedAsker('Ada', ...Array.from({ length: 12 }, () => keepDefault));
    const { run, context } = h.beginRun({ mode: 'full-access', asker });
    try {
      const result = await h.call('mcp_everything_trigger_elicitation_request', {}, context);
      expect(result.isError).toBeUndefined();
      expect(asker.questions).toHaveLength(13);
      const multi = asker.questions.filter((q) => q.multiSelect === true);
      expect(multi.map((q) => q.options?.map((o) => o.label))).toEqual([
        ['Guitar', 'Piano', 'Violin', 'Drums', 'Bass'],
        ['Tuna', 'Salmon', 'Trout'],
      ]);
      // The server echoes what it got: the name and every default, in the server's own values.
      for (const value of ['Ada', 'It was a dark and stormy night.', '42', '3.14', 'Monica']) {
        expect(result.content).toContain(value);
      }
      expect(result.content).toMatch(/Guitar/);
      expect(result.content).toMatch(/fish-1/);
      expect(result.content).toMatch(/hero-1/);
      expect(result.content).toMatch(/pet-1/);
    } finally {
      run.end();
    }
  });
});
