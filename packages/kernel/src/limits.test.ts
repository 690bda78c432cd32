import { describe, expect, it } from 'vitest';
import { LIMITS } from './limits.js';

// Every row of the "Resource limits" table of spec/mcp-integration.txt (plus the numbers its
// prose fixes), pinned here so that a changed number fails loudly instead of drifting. Code reads
// LIMITS; the tests of each adapter prove the value is enforced.
const KiB = 1024;
const MiB = 1024 * KiB;

describe('LIMITS match spec/mcp-integration.txt (the runtime-neutral rows)', () => {
  it.each([
    ['tools per server: 512', LIMITS.toolsPerServer, 512],
    ['one tools/call: 120 s', LIMITS.toolCallMs, 120_000],
    ['extension step: 60 s', LIMITS.toolCallExtensionStepMs, 60_000],
    ['total host-request extension: 10 min', LIMITS.toolCallExtensionTotalMs, 600_000],
    ['tool result: 1 MiB', LIMITS.toolResultBytes, MiB],
    ['sampling messages: 32', LIMITS.samplingMessages, 32],
    ['sampling output request: 8,192 tokens', LIMITS.samplingMaxOutputTokens, 8192],
    ['sampling outbound text: 262,144 characters', LIMITS.samplingOutboundChars, 262_144],
    ['shared sampling budget: 64 requests/run', LIMITS.samplingRequestsPerRun, 64],
    ['shared sampling budget: 1,000,000 tokens', LIMITS.samplingTokensPerRun, 1_000_000],
    ['elicitation fields: 16', LIMITS.elicitationFields, 16],
    ['elicitation choices: 16', LIMITS.elicitationChoices, 16],
    ['invalid numbers re-asked up to twice', LIMITS.elicitationNumberRetries, 2],
    ['first run waits up to 20 s for the initial surface', LIMITS.initialSurfaceWaitMs, 20_000],
    ['stderr tail: last 20 lines', LIMITS.stderrTailLines, 20],
    ['tool names: 64 characters before the hash suffix', LIMITS.toolNameChars, 64],
  ])('%s', (_row, actual, expected) => {
    expect(actual).toBe(expected);
  });

  it('the extension steps fit the total a whole number of times', () => {
    expect(LIMITS.toolCallExtensionTotalMs % LIMITS.toolCallExtensionStepMs).toBe(0);
  });
});
