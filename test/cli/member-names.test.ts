/**
 * Names that are members of JavaScript's Object prototype (`constructor`, `toString`,
 * `__proto__`), typed by a person or written in a config file, through the real binary: each is
 * an ordinary name. Before, `${constructor}` in mcp.json started a server with a function's text
 * as its argument, an `apiKeyEnv` of `constructor` crashed every command, `--env __proto__=1`
 * said "Added" and wrote nothing, and a `__proto__` argument of a call or prompt was lost.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STDIO_FIXTURES, useCliSandbox } from './support.js';

const sandbox = useCliSandbox(async () => {
  await sandbox.writeMcp({
    mcpServers: { names: sandbox.node(join(STDIO_FIXTURES, 'member-names.mjs')) },
  });
});

describe('names of Object members', () => {
  it('are unset variables in mcp.json and config.json, not functions', async () => {
    const names = sandbox.node(join(STDIO_FIXTURES, 'member-names.mjs')) as { args: string[] };
    await sandbox.writeMcp({
      mcpServers: {
        names: sandbox.node(join(STDIO_FIXTURES, 'member-names.mjs')),
        member: { ...names, args: [...names.args, '${constructor}'] },
      },
    });
    const status = await sandbox.run(['mcp', '--trust']);
    expect(status.stdout).toContain(
      'member.args[2]: the environment variable constructor is not set and has no default',
    );
    expect(status.stdout).not.toContain('native code');

    await sandbox.writeConfig({
      provider: {
        kind: 'openai-compatible',
        baseUrl: 'http://127.0.0.1:9/v1',
        model: 'm',
        apiKeyEnv: 'constructor',
      },
    });
    const tools = await sandbox.run(['tools', '--trust']);
    expect(tools.stderr).not.toContain('unexpected error');
    const exec = await sandbox.run(['exec', 'hi', '--trust']);
    expect(exec.code).toBe(1);
    expect(exec.stderr).toContain(
      'provider.apiKeyEnv: environment variable constructor is not set or empty; export it or set "apiKey"',
    );
  });

  it('are arguments of a call and of a prompt like any other', async () => {
    const call = await sandbox.run([
      'call',
      'mcp_names_echo_args',
      '__proto__=x',
      'constructor=y',
      '--trust',
    ]);
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout).toBe('{"__proto__":"x","constructor":"y"}\n');
    for (const words of [['__proto__=hello'], ['hello']]) {
      const prompt = await sandbox.run(['prompts', 'get', 'names', 'q', ...words, '--trust']);
      expect(prompt.code, prompt.stderr).toBe(0);
      expect(prompt.stdout).toContain('arguments {"__proto__":"hello"}');
    }
  });

  it('__proto__ as an --env or --header name is refused, not dropped after "Added"', async () => {
    const env = await sandbox.run(['mcp', 'add', 'e1', '--env', '__proto__=1', '--', 'node']);
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('--env name "__proto__" cannot be stored; use another name');
    const header = await sandbox.run([
      'mcp',
      'add',
      'h1',
      '--header',
      '__proto__: x',
      'https://example.com/mcp',
    ]);
    expect(header.code).toBe(2);
    expect(header.stderr).toContain('name "__proto__" cannot be stored');
    const listed = await sandbox.run(['mcp', 'list']);
    expect(listed.stdout).not.toMatch(/\be1\b|\bh1\b/);
  });
});
