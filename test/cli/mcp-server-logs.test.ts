/**
 * Server log messages through the real `clat` binary: a server that declares `logging` is asked
 * for warnings and above, its messages are kept as a bounded, redacted tail in `clat mcp --json`
 * (exact) and the newest warnings or worse show sanitised in `clat mcp`; a flood stays bounded
 * and a server that refuses the level still connects.
 */
import { join } from 'node:path';
import { LIMITS } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { parseJsonOutput, STDIO_FIXTURES, useCliSandbox } from './support.js';

const ESC = '\u001b';
const LOGGING = join(STDIO_FIXTURES, 'logging.mjs');

interface LogEntry {
  level: string;
  logger?: string;
  text: string;
}

interface StatusJson {
  servers: { name: string; state: string; logTail: LogEntry[] }[];
}

const sandbox = useCliSandbox(async () => {
  await sandbox.writeMcp({
    logs: sandbox.node(LOGGING),
    flood: { ...sandbox.node(LOGGING), env: { LOG_FLOOD: '5000', LOG_REFUSE: '1' } },
  });
  await sandbox.run(['trust']);
});

async function status(): Promise<StatusJson['servers']> {
  const result = await sandbox.run(['mcp', '--json']);
  expect(result.code, result.stderr).toBe(0);
  return parseJsonOutput<StatusJson>(result).servers;
}

describe('MCP server logs', () => {
  it('keeps warnings and above of a server that logs, redacted and exact in --json', async () => {
    const logs = (await status()).find((server) => server.name === 'logs');
    expect(logs?.state).toBe('connected');
    const tail = logs?.logTail ?? [];
    // logging/setLevel warning was honoured: nothing below it was sent.
    expect(tail.map((entry) => entry.level)).toEqual([
      'warning',
      'emergency',
      'alert',
      'critical',
      'error',
    ]);
    expect(tail[0]).toEqual({
      level: 'warning',
      logger: 'disk',
      text: '{"disk":"/var","freePercent":3}',
    });
    expect(tail[1]?.text).toBe(`${'x'.repeat(LIMITS.logEntryChars)}…`);
    expect(tail[3]).toEqual({ level: 'critical', logger: 'db', text: 'db pool\nexhausted' });
    expect(tail[4]?.text).toBe(
      `upstream ${ESC}[31mdown${ESC}[0m: Authorization: Bearer [REDACTED]`,
    );
  });

  it('shows the newest warnings or worse in clat mcp, sanitised', async () => {
    const result = await sandbox.run(['mcp']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toContain(ESC);
    expect(result.stdout).not.toContain('sk-fixture');
    const block = result.stdout.slice(result.stdout.indexOf('  logs '));
    expect(block).toContain(
      [
        '      log: 2 earlier warnings or worse not shown (`clat mcp --json` lists them)',
        '      log alert: alert raised',
        '      log critical db: db pool\\nexhausted',
        '      log error: upstream \\x1b[31mdown\\x1b[0m: Authorization: Bearer [REDACTED]',
      ].join('\n'),
    );
  });

  it('keeps a flood bounded, and connects a server that refuses the level', async () => {
    const flood = (await status()).find((server) => server.name === 'flood');
    expect(flood?.state).toBe('connected');
    const tail = flood?.logTail ?? [];
    expect(tail).toHaveLength(LIMITS.logTailEntries);
    // Refused, the server logs at its own level: the tail is its newest messages, debug included.
    expect(tail.map((entry) => entry.text)).toContain('debug chatter');
    expect(tail[0]?.text).toMatch(/^flood 49\d\d$/);
    const call = await sandbox.run(['call', 'mcp_flood_echo', '{"text":"still here"}']);
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout).toBe('still here\n');
  });
});
