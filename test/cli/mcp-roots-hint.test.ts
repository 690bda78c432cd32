/**
 * The `/mcp` roots hint through the real `clat` binary: a server that asked for roots is told to
 * set `"roots": false` only when its entry's arguments name paths it could have served instead.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STDIO_FIXTURES, useCliSandbox } from './support.js';

// It asks for roots right after the handshake, like server-filesystem.
const ASKS_ROOTS = join(STDIO_FIXTURES, 'logging.mjs');
const HINT = 'to keep the directories its arguments name instead, set "roots": false on its entry';

const sandbox = useCliSandbox(async () => {
  await sandbox.writeMcp({
    plain: sandbox.node(ASKS_ROOTS, 'stdio'),
    dirs: sandbox.node(ASKS_ROOTS, sandbox.project),
  });
  await sandbox.run(['trust']);
});

describe('the roots hint of clat mcp', () => {
  it('names "roots": false only for a server whose arguments name a path', async () => {
    const result = await sandbox.run(['mcp']);
    expect(result.code, result.stderr).toBe(0);
    const roots = result.stdout.split('\n').filter((line) => line.includes('roots: '));
    expect(roots).toEqual([
      '      roots: project root offered; the server asked 1 time',
      `      roots: project root offered; the server asked 1 time; ${HINT}`,
    ]);
  });
});
