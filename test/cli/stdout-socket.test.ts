/**
 * How `clat` reads a stdio server's stdout: on Linux through a socket pair, into one buffer it
 * reuses, instead of a pipe that hands over a new buffer per read. Through the real binary, with a
 * server that is not Node (Python, standard library only, plain blocking writes): its fd 1 is a
 * blocking socket, a result just under the 1 MiB tool result limit arrives whole, and after a flood of frames over the 4 MiB limit
 * (skipped without being kept) the same call answers.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STDIO_FIXTURES, useCliSandbox } from './support.js';

const PYTHON_SERVER = join(STDIO_FIXTURES, 'python-legacy.py');
const hasPython = spawnSync('python3', ['--version']).status === 0;

/** What the fixture's `big` writes: lines of their own byte offset. */
function pattern(size: number): string {
  let out = '';
  for (let n = 0; out.length < size; n++) out += `${String(n * 10).padStart(9, '0')}\n`;
  return out.slice(0, size);
}

const sandbox = useCliSandbox(async () => {
  await sandbox.writeMcp({
    mcpServers: { py: { command: 'python3', args: [PYTHON_SERVER, `--${sandbox.marker}`] } },
  });
  await sandbox.run(['trust']);
});

describe.runIf(hasPython)('a Python stdio server through clat', () => {
  it("writes to a blocking stdout: the accepted end of clat's socket pair", async () => {
    const result = await sandbox.run(['call', 'mcp_py_stdout', '{}']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const stdout = JSON.parse(result.stdout) as {
      blocking: boolean;
      kind: string;
      address: string;
    };
    expect(stdout.blocking).toBe(true);
    expect(stdout.kind).toBe('socket');
    // A pipe (libuv's socket pair) has no address; clat's listener has an abstract one.
    if (process.platform === 'linux')
      expect(stdout.address).toMatch(/^@clat-stdout-\d+-[0-9a-f]{16}$/);
    else expect(stdout.address).toBe('');
  });

  it('delivers a result just under the tool result limit whole, over many reads', async () => {
    // JSON escapes each newline of the text: the frame is about 1 MiB.
    const bytes = 900_000;
    const result = await sandbox.run(['call', 'mcp_py_big', JSON.stringify({ bytes })]);
    expect(result.code).toBe(0);
    const text = result.stdout.endsWith('\n') ? result.stdout.slice(0, -1) : result.stdout;
    expect(text.length).toBe(bytes);
    expect(text === pattern(bytes)).toBe(true);
  });

  it('skips a flood of frames over the limit and answers the call after it', async () => {
    const result = await sandbox.run([
      'call',
      'mcp_py_flood',
      JSON.stringify({ frames: 8, bytes: 4 * 1024 * 1024 + 1 }),
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe('flooded');
  });
});
