import { LIMITS } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { MCP_LIMITS } from './limits.js';
import { DEFAULT_TIMEOUTS, resolveTimeouts } from './protocol.js';

// The MCP rows of the "Resource limits" table of spec/mcp-integration.txt, pinned so that a
// changed number fails loudly instead of drifting (the kernel pins the runtime-neutral rows).
const KiB = 1024;
const MiB = 1024 * KiB;

describe('MCP_LIMITS match spec/mcp-integration.txt', () => {
  it.each([
    ['one stdio frame: 4 MiB', MCP_LIMITS.stdioFrameBytes, 4 * MiB],
    ['legacy handshake: 10 s', MCP_LIMITS.legacyHandshakeMs, 10_000],
    ['modern discovery probe: 3 s', MCP_LIMITS.modernProbeMs, 3_000],
    ['one tools/list page: 30 s', MCP_LIMITS.listPageMs, 30_000],
    ['tools/list pages: 32', MCP_LIMITS.listPages, 32],
    ['marked DSH prompts per server: 128', MCP_LIMITS.dshPromptsPerServer, 128],
    ['one resolved DSH system prompt: 256 KiB', MCP_LIMITS.dshPromptBytes, 256 * KiB],
    ['inbound server-request queue: 16', MCP_LIMITS.inboundRequestQueue, 16],
    // Not in the spec table (it predates input_required); README "Limits" states them.
    ['input_required rounds per request: 10', MCP_LIMITS.inputRounds, 10],
    ['input requests per round: 16', MCP_LIMITS.inputRequestsPerRound, 16],
  ])('%s', (_row, actual, expected) => {
    expect(actual).toBe(expected);
  });

  it('gives every client these deadlines unless a caller overrides one', () => {
    // Each connection resolves its deadlines from DEFAULT_TIMEOUTS: pinned to the spec's numbers,
    // so a default wired to the wrong limit fails here, not in production.
    const expected = {
      modernProbeMs: 3_000,
      legacyHandshakeMs: 10_000,
      listPageMs: 30_000,
      promptGetMs: 30_000,
      toolCallMs: 120_000,
      toolCallExtensionStepMs: 60_000,
      toolCallExtensionTotalMs: 600_000,
    };
    expect(DEFAULT_TIMEOUTS).toEqual(expected);
    expect(resolveTimeouts(undefined)).toEqual(expected);
    expect(resolveTimeouts({ toolCallMs: 5 })).toEqual({ ...expected, toolCallMs: 5 });
  });

  it('waits for a task as long as a tool call may run with its whole host-request extension', () => {
    expect(MCP_LIMITS.taskWaitMs).toBe(LIMITS.toolCallMs + LIMITS.toolCallExtensionTotalMs);
  });
});
