/**
 * How `clat` reads an SSE response of a Streamable HTTP server: whole lines, decoded once. Through
 * the real binary: a result of about 690 KB sent as one event with CRLF line endings, in writes
 * that cut through its characters, arrives exactly; an event that never ends is
 * refused at the 4 MiB cap with the limit named, and the next call to the other server answers.
 */
import { describe, expect, it } from 'vitest';
import { bigText } from '../fixtures/http-servers/big-text.mjs';
import { startFaultServer, stopAllHttpFixtures } from '../fixtures/http-servers/spawn.js';
import { useCliSandbox } from './support.js';

const sandbox = useCliSandbox(undefined, {
  teardown: async () => {
    await stopAllHttpFixtures();
  },
});

describe('SSE responses through clat', () => {
  it('a big event cut anywhere arrives exactly; an endless one is refused at the cap', async () => {
    const big = await startFaultServer('big-sse-result', 'tools/call');
    const flood = await startFaultServer('oversized-sse', 'tools/call');
    for (const [name, server] of [
      ['big', big],
      ['flood', flood],
    ] as const) {
      const added = await sandbox.run(['mcp', 'add', name, '--url', `${server.origin}/mcp`]);
      expect(added.code).toBe(0);
    }
    await sandbox.run(['trust']);

    const result = await sandbox.run(['call', 'mcp_big_poke', '{}']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const text = result.stdout.endsWith('\n') ? result.stdout.slice(0, -1) : result.stdout;
    const expected = bigText();
    expect(text.length).toBe(expected.length);
    expect(text === expected).toBe(true);

    const refused = await sandbox.run(['call', 'mcp_flood_poke', '{}']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('more than 4194304 bytes');
    // The server reports when its response closes, which may come after clat exited.
    await expect.poll(() => flood.stderr()).toMatch(/flood stopped after \d+ bytes/);
    const stopped = Number(/flood stopped after (\d+) bytes/.exec(flood.stderr())?.[1]);
    // Stopped near the cap, far from the 64 MiB the server would send.
    expect(stopped).toBeLessThan(32 * 1024 * 1024);

    const again = await sandbox.run(['call', 'mcp_big_poke', '{}']);
    expect(again.code).toBe(0);
    expect(again.stdout.length).toBeGreaterThan(expected.length);
  });
});
