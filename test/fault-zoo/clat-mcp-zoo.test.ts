import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertBuilt,
  type ClatResult,
  CliSandbox,
  parseJsonOutput,
  STDIO_FIXTURES,
} from '../cli/support.js';

// The stdio fault zoo as a user sees it: one ~/.clat/mcp.json with a healthy server and many
// misbehaving ones, mounted by the real `clat` binary. `clat mcp` must report each failure with
// a useful, redacted reason, keep the healthy servers connected, and leave no process behind
// (every server and grandchild carries the sandbox marker in its argv). Handshake hangs and
// never-answered lists use production deadlines here, so they live in the in-process zoo.

interface StatusJson {
  configured: number;
  connecting: number;
  connected: number;
  failed: number;
  servers: { name: string; state: string; tools: number; failure?: string; stderrTail: string[] }[];
}

let sandbox: CliSandbox;
let json: ClatResult;
let text: ClatResult;

beforeAll(async () => {
  assertBuilt();
  sandbox = new CliSandbox();
  await sandbox.setup();
  const server = (file: string, ...args: string[]) =>
    sandbox.node(join(STDIO_FIXTURES, file), ...args);
  const healthy = server('legacy.mjs');
  const diesNoisily = server('stderr-flood.mjs', '--exit');
  await sandbox.writeMcp({
    mcpServers: {
      healthy,
      'dies-noisily': diesNoisily,
      'repeated-cursor': server('repeated-cursor.mjs'),
      'many-tools': server('many-tools.mjs'),
      collisions: server('name-collision.mjs'),
      garbage: server('garbage-frames.mjs'),
      'bad-ids': server('bad-ids.mjs'),
      'ignores-sigterm': server('ignore-sigterm.mjs'),
      grandchildren: server('grandchildren.mjs'),
    },
  });
  json = await sandbox.run(['mcp', '--json', '--trust'], { timeoutMs: 60_000 });
  // The human view, on a smaller file: the SIGTERM-proof server costs two shutdown graces per run.
  await sandbox.writeMcp({ mcpServers: { healthy, 'dies-noisily': diesNoisily } });
  text = await sandbox.run(['mcp', '--trust'], { timeoutMs: 60_000 });
}, 150_000);

afterAll(async () => {
  const survivors = sandbox.survivors();
  await sandbox.cleanup();
  expect(survivors, 'server or grandchild processes outlived clat').toEqual([]);
});

describe('clat mcp over the stdio fault zoo', () => {
  it('keeps healthy servers connected and fails only the misbehaving ones', () => {
    // Some zoo servers fail by design: `clat mcp` reports them and exits 1.
    expect(json.code, json.stderr).toBe(1);
    const status = parseJsonOutput<StatusJson>(json);
    const state = Object.fromEntries(status.servers.map((s) => [s.name, s.state]));
    expect(state).toEqual({
      healthy: 'connected',
      'dies-noisily': 'failed',
      'repeated-cursor': 'failed',
      'many-tools': 'failed',
      collisions: 'connected',
      garbage: 'connected',
      'bad-ids': 'connected',
      'ignores-sigterm': 'connected',
      grandchildren: 'connected',
    });
    expect(status).toMatchObject({ configured: 9, connecting: 0, connected: 6, failed: 3 });
    const tools = Object.fromEntries(status.servers.map((s) => [s.name, s.tools]));
    expect(tools['many-tools']).toBe(0);
    expect(tools.collisions).toBe(2);
  });

  it('gives each failure a useful reason', () => {
    const status = parseJsonOutput<StatusJson>(json);
    const failure = Object.fromEntries(status.servers.map((s) => [s.name, s.failure ?? '']));
    expect(failure['dies-noisily']).toMatch(/exited with code 7/);
    expect(failure['repeated-cursor']).toMatch(/repeated cursor/);
    expect(failure['many-tools']).toMatch(/512/);
    const noisy = status.servers.find((s) => s.name === 'dies-noisily');
    expect(noisy?.stderrTail.length).toBeLessThanOrEqual(20);
    expect(noisy?.stderrTail.join('\n')).toContain('upstream said 401');
  });

  it('redacts the fake credentials everywhere it prints', () => {
    for (const output of [json.stdout, json.stderr, text.stdout, text.stderr]) {
      expect(output).not.toMatch(/sk-fixture|0123456789abcdefSECRET|AKIAFIXTURE/);
    }
    expect(json.stdout).toContain('Bearer [REDACTED]');
    expect(text.stdout).toMatch(/dies-noisily\s+stdio\s+failed/);
    expect(text.stdout).toContain('[REDACTED]');
  });
});
