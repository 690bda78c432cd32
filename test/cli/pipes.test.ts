/**
 * A closed stdout (issue 14 item 9): `clat tools --json | head -1` and `clat plugin inspect x |
 * head -1` end quietly (status 0 or 141, no EPIPE stack) and leave no server behind.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, CLAT_BIN, CliSandbox, REPO_ROOT } from './support.js';

let sandbox: CliSandbox;

beforeAll(async () => {
  assertBuilt();
  sandbox = new CliSandbox();
  await sandbox.setup();
  await sandbox.writeMcp({ notes: sandbox.notesServer() });
  await sandbox.run(['trust']);
});
afterAll(async () => {
  const survivors = sandbox.survivors();
  await sandbox.cleanup();
  expect(survivors).toEqual([]);
});

/**
 * Runs `clat <args> | true` in a real shell pipeline: the reader is gone before clat writes (what
 * `| head -1` does to any output longer than its first line, without the race).
 */
function pipeToHead(args: string[]): Promise<{ status: number; stderr: string }> {
  const quoted = [process.execPath, CLAT_BIN, ...args].map((arg) => `'${arg}'`).join(' ');
  const script = `${quoted} 2>"$CLAT_ERR_FILE" | true; s=\${PIPESTATUS[0]}; cat "$CLAT_ERR_FILE"; exit $s`;
  const child = spawn('bash', ['-c', script], {
    cwd: sandbox.project,
    env: { ...sandbox.env(), CLAT_ERR_FILE: join(sandbox.root, `err-${args[0]}.txt`) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve) => {
    child.on('close', (code) => resolve({ status: code ?? -1, stderr }));
  });
}

describe('a closed stdout', () => {
  it.each([
    [['tools', '--json']],
    [['plugin', 'inspect', join(REPO_ROOT, 'plugins/mcp-notes/dist/package')]],
  ])('clat %j | true ends quietly', async (args) => {
    const result = await pipeToHead(args);
    expect([0, 141]).toContain(result.status);
    expect(result.stderr).not.toMatch(/EPIPE|Error|at /);
  });
});
