/**
 * Plugin sampling during `clat call` through the real binary against server-everything's
 * `trigger-sampling-request`: without a configured model the refusal the server relays says what
 * a person can change (and keeps the -32000 code).
 */
import { describe, expect, it } from 'vitest';
import { EVERYTHING_SERVER, useCliSandbox } from './support.js';

const sandbox = useCliSandbox(async () => {
  await sandbox.writeMcp({ ev: sandbox.node(EVERYTHING_SERVER, 'stdio') });
});

describe('clat call: plugin sampling', () => {
  it('says no model is configured and where to configure one', async () => {
    const result = await sandbox.run([
      'call',
      'mcp_ev_trigger_sampling_request',
      'prompt=hi',
      '--trust',
    ]);
    expect(result.stdout).toBe(
      'MCP error -32000: sampling is unavailable: no model is configured for this run; set "provider" in ~/.clat/config.json\n',
    );
    expect(result.stdout).not.toContain('run-');
  });
});
