import type { ApprovalRequest, FormQuestion, ModelRequest } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { CallRouter, type RoutedCall } from './call-router.js';

const EVERYTHING = { kind: 'mcp', id: 'everything' };
const OTHER = { kind: 'wasm', id: 'everything' };

function call(
  answer: string,
  sample = true,
  elicit = true,
): RoutedCall & { asked: ApprovalRequest[]; forms: FormQuestion[] } {
  const asked: ApprovalRequest[] = [];
  const forms: FormQuestion[] = [];
  return {
    asked,
    forms,
    plugin: EVERYTHING,
    approver: {
      async approve(request) {
        asked.push(request);
        return { outcome: 'allow' };
      },
    },
    sample: sample
      ? async () => ({ text: answer, model: 'm', stopReason: 'endTurn', usage: null })
      : undefined,
    noSampling: 'this MCP client offers no sampling',
    askForm: elicit
      ? async (question) => {
          forms.push(question);
          return { action: 'accept', content: { who: answer } };
        }
      : undefined,
  };
}

const request = (source = EVERYTHING): ModelRequest => ({
  messages: [{ role: 'user', text: 'hi' }],
  maxTokens: 10,
  source,
});
const approval = (tool: string, source = EVERYTHING): ApprovalRequest => ({
  callId: 'c',
  tool,
  effect: 'execute',
  source,
  reason: 'r',
  arguments: {},
});
const signal = new AbortController().signal;

describe('CallRouter', () => {
  it("routes a plugin's sampling to the oldest running call of that plugin", async () => {
    const router = new CallRouter();
    const leaveFirst = router.enter(call('first'));
    router.enter(call('second'));
    expect((await router.model.complete(request(), signal)).text).toBe('first');
    leaveFirst();
    expect((await router.model.complete(request(), signal)).text).toBe('second');
  });

  it('refuses sampling with no running call of the plugin, or a client without sampling', async () => {
    const router = new CallRouter();
    await expect(router.model.complete(request(), signal)).rejects.toThrow(
      'no gateway call of mcp:everything is running',
    );
    router.enter(call('x'));
    // Same id, another kind: not the same plugin.
    await expect(router.model.complete(request(OTHER), signal)).rejects.toThrow(
      'no gateway call of wasm:everything',
    );
    const router2 = new CallRouter();
    router2.enter(call('x', false));
    await expect(router2.model.complete(request(), signal)).rejects.toMatchObject({
      code: 'SAMPLING_UNAVAILABLE',
      message: 'this MCP client offers no sampling',
    });
    // Its approval is denied before anyone is asked.
    expect(await router2.approver.approve(approval('mcp:everything:sampling'), signal)).toEqual({
      outcome: 'deny',
      reason: 'this MCP client offers no sampling',
    });
  });

  it("asks the calling client's approver for the plugin's requests, and denies strays", async () => {
    const router = new CallRouter();
    const running = call('x');
    router.enter(running);
    expect(
      await router.approver.approve(approval('mcp:everything:host:write_file'), signal),
    ).toEqual({ outcome: 'allow' });
    expect(running.asked.map((asked) => asked.tool)).toEqual(['mcp:everything:host:write_file']);
    expect(await router.approver.approve(approval('t', OTHER), signal)).toMatchObject({
      outcome: 'deny',
      reason: expect.stringContaining('no MCP client can be asked'),
    });
  });

  it("routes a plugin's elicitation form to the oldest call of that plugin, else refuses it", async () => {
    const router = new CallRouter();
    const form = (source = EVERYTHING): FormQuestion => ({
      form: { message: 'who?', fields: [] },
      rules: {},
      source,
    });
    await expect(router.asker.askForm?.(form(), signal)).rejects.toMatchObject({
      code: 'ELICITATION_NO_FRONTEND',
      message:
        'no gateway call of mcp:everything is running, so no MCP client can answer its elicitation',
    });
    const first = call('first');
    const leave = router.enter(first);
    router.enter(call('second'));
    expect(await router.asker.askForm?.(form(), signal)).toEqual({
      action: 'accept',
      content: { who: 'first' },
    });
    expect(first.forms).toHaveLength(1);
    leave();
    expect(await router.asker.askForm?.(form(), signal)).toMatchObject({
      content: { who: 'second' },
    });
    await expect(router.asker.askForm?.(form(OTHER), signal)).rejects.toThrow(
      'no gateway call of wasm:everything',
    );
    const silent = new CallRouter();
    silent.enter(call('x', true, false));
    await expect(silent.asker.askForm?.(form(), signal)).rejects.toThrow(
      'the MCP client calling mcp:everything offers no elicitation',
    );
    // A plugin's own ask_user names no plugin: refused, never sent to some client.
    await expect(router.asker.ask({ question: 'q' }, signal)).rejects.toMatchObject({
      code: 'ELICITATION_NO_FRONTEND',
    });
  });
});
