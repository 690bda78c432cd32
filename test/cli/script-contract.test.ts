/**
 * What a script relies on, through the binary: a word or flag a command does not use is a usage
 * error (exit 2) rather than ignored, `--mode` only where tools run and `--json` only where JSON
 * is printed, a broken mcp.json is named by `mcp get` instead of "no server named", and session
 * flags without a terminal say where they work. The session does not report servers its own
 * closing stopped as failed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLAT_BIN, STDIO_FIXTURES, useCliSandbox } from './support.js';

const sandbox = useCliSandbox();

/** Runs `clat <args>` and expects a usage error whose one stderr line contains `said`. */
async function refused(args: string[], said: string): Promise<void> {
  const result = await sandbox.run(args);
  expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr).toContain(said);
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  // Scripts find the code at the end of the line, as for every other failure.
  expect(result.stderr.trimEnd()).toMatch(/ \[CLI_USAGE\]$/);
}

describe('words and flags a command does not use', () => {
  it('are usage errors, each saying what the command takes', async () => {
    await refused(
      ['version', 'extra'],
      'clat version takes no arguments; run "clat version" alone',
    );
    await refused(['help', 'tols'], 'no command "tols" to help with (did you mean "tools"?)');
    await refused(
      ['completion', 'bash', '--json'],
      'clat completion bash takes nothing after the shell, not "--json"',
    );
    await refused(
      ['trust', '--list', '--remove'],
      'clat trust --list takes no directory and no --remove',
    );
    await refused(['mcp', 'status', 'extra'], 'clat mcp status takes no arguments, not "extra"');
    await refused(['mcp', 'list', 'extra'], 'clat mcp list takes no arguments, not "extra"');
    await refused(
      ['mcp', 'get', 'my', 'server'],
      "clat mcp get takes one name; a name with a space goes in quotes: clat mcp get 'my server'",
    );
    // The line shown works: the quoted name is looked up (and not found, exit 1).
    const quoted = await sandbox.run(['mcp', 'get', 'my server']);
    expect(quoted.code).toBe(1);
    expect(quoted.stderr).toContain('no server named "my server"');
  });

  it('take --mode only where tools run and --json only where JSON is printed', async () => {
    for (const command of ['tools', 'mcp', 'prompts', 'resources']) {
      await refused(
        [command, '--mode', 'read-only'],
        `unknown option "--mode" for clat ${command}`,
      );
    }
    await refused(['chat', '--json'], 'unknown option "--json" for clat chat');
    // A bad mode is the usage error, before exec finds that no model provider is configured.
    await refused(['exec', 'hi', '--mode', 'bogus'], '--mode "bogus" is not a permission mode');
    const help = await sandbox.run(['tools', '--help']);
    expect(help.stdout).not.toContain('--mode');
    expect((await sandbox.run(['call', '--help'])).stdout).toContain('--mode <mode>');
  });

  it('says where a session flag works when no terminal runs the session', async () => {
    await refused(
      ['--mode', 'read-only'],
      '--mode is an option of the interactive session, which needs a terminal (stdin is not one); without one, "clat chat --mode …" reads its lines from stdin',
    );
    // That line works as said.
    const chat = await sandbox.run(['chat', '--trust', '--mode', 'read-only'], {
      input: '/exit\n',
    });
    expect(chat.code, chat.stderr).toBe(0);
    expect(chat.stdout).toContain('(mode read-only)');
  });
});

describe('an environment a script may run in', () => {
  it('with HOME empty, keeps its settings in the account home, never in ./.clat', async () => {
    const result = await sandbox.run(['mcp', 'list'], { env: { HOME: '', CLAT_HOME: '' } });
    const file = join(userInfo().homedir, '.clat', 'mcp.json');
    expect(result.stdout.startsWith(file), result.stdout).toBe(true);
    expect(existsSync(join(sandbox.project, '.clat'))).toBe(false);
  });

  it.skipIf(!existsSync('/dev/full'))(
    'says in one line that its output could not be written',
    () => {
      const result = spawnSync(
        'sh',
        ['-c', `"${process.execPath}" "${CLAT_BIN}" help > /dev/full`],
        {
          env: sandbox.env(),
          encoding: 'utf8',
        },
      );
      expect(result.status).toBe(1);
      expect(result.stderr).toBe(
        'clat: cannot write the output: ENOSPC: no space left on device, write\n',
      );
    },
  );
});

describe('clat mcp get of a broken mcp.json', () => {
  it("names the file's problem instead of saying no such server", async () => {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(sandbox.home, 'mcp.json'), '{ "legacy": ');
    for (const json of [[], ['--json']]) {
      const got = await sandbox.run(['mcp', 'get', 'legacy', ...json]);
      expect(got.code).toBe(1);
      expect(got.stdout).toBe('');
      expect(got.stderr).toBe(
        `clat: ${join(sandbox.home, 'mcp.json')}: (root): not valid JSON: unexpected end of input at line 1, column 13 [CLI_CONFIG_INVALID]\n`,
      );
    }
  });
});

describe('a session whose input ends while servers connect', () => {
  it('does not report the servers its closing stopped as failed', async () => {
    // The server lists its tools after 3 s: input ends long before.
    await sandbox.writeMcp({
      slow: {
        ...sandbox.node(join(STDIO_FIXTURES, 'slow-list.mjs')),
        env: { SLOW_LIST_MS: '3000' },
      },
    });
    const result = await sandbox.run(['chat', '--trust'], { input: '' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('closing the project…');
    expect(result.stdout).not.toContain('failed');
  });
});
