import { HostServicesMethod } from '@clat/adapter-mcp';
import type { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { DshPluginContext } from '../dsh-context.js';
import { newClient, type ServedPair, servePaired } from '../test-support.js';

/** One plugin tool per scenario; each returns what the seam produced (or throws). */
function plugin(ctx: DshPluginContext) {
  const tool = (name: string, execute: (args: Record<string, unknown>) => unknown) =>
    ctx.tools.register({
      name,
      description: name,
      parameters: { type: 'object' },
      output: {
        render: (_a: unknown, v: unknown) => [{ type: 'text', text: JSON.stringify(v) ?? '' }],
      },
      execute: (args: unknown) => execute(args as Record<string, unknown>),
    });
  tool('shell_run', (args) =>
    ctx.shell.run({ command: String(args.command), timeoutMs: Number(args.timeoutMs) }),
  );
  tool('shell_env', () => ctx.shell.run({ command: 'env', env: { A: '1' } }));
  tool('write', async (args) =>
    ctx.fs.writeText(await ctx.fs.resolve(String(args.path)), String(args.content)),
  );
  tool('write_guarded', async () =>
    ctx.fs.writeText(await ctx.fs.resolve('a.txt'), 'x', { version: 'v1' }),
  );
  tool('edit', async () =>
    ctx.fs.editText(await ctx.fs.resolve('a.txt'), { oldString: 'alpha', newString: 'omega' }),
  );
  tool('edit_all', async () =>
    ctx.fs.editText(await ctx.fs.resolve('a.txt'), {
      oldString: 'a',
      newString: 'b',
      replaceAll: true,
    }),
  );
  tool('outside', async () => ctx.fs.resolve('../etc/passwd'));
  tool('list', async () =>
    (await ctx.fs.listDir(await ctx.fs.resolve('src'))).map((entry) => [entry.name, entry.type]),
  );
}

const ROOT = '/work/project';
let pair: ServedPair;
let client: Client;
let calls: { name: string; arguments: Record<string, unknown> }[];
let files: Map<string, string>;

async function open(): Promise<void> {
  pair = await servePaired(plugin);
  client = newClient();
  await client.connect(pair.transport as never);
  calls = [];
  files = new Map([['a.txt', 'alpha\n']]);
  client.setRequestHandler(
    HostServicesMethod.contextGet,
    { params: z.object({}).passthrough() },
    async () => ({
      protocolVersion: '0.1.0',
      project: { root: ROOT },
      run: null,
      hostTools: [],
    }),
  );
  client.setRequestHandler(
    HostServicesMethod.toolsCall,
    { params: z.object({ name: z.string(), arguments: z.record(z.string(), z.unknown()) }) },
    async (params) => {
      calls.push(params);
      const args = params.arguments;
      switch (params.name) {
        case 'run_command':
          return {
            output: { exit_code: 0, signal: null, timed_out: false, stdout: 'hi\n', stderr: '' },
          };
        case 'write_file':
          files.set(String(args.path), String(args.content));
          return { output: { path: args.path, bytes: 1, created: true } };
        case 'read_file': {
          const text = files.get(String(args.path)) ?? '';
          const content = text
            .split('\n')
            .slice(0, -1)
            .map((line, i) => `${i + 1} | ${line}\n`)
            .join('');
          return { output: { path: args.path, content, truncated: false } };
        }
        case 'edit_file': {
          const text = files.get(String(args.path)) ?? '';
          files.set(String(args.path), text.replace(String(args.old_str), String(args.new_str)));
          return { output: { path: args.path, replacements: 1 } };
        }
        case 'list_files':
          return {
            output: {
              path: args.path,
              entries: [
                { path: 'src/a.ts', kind: 'file' },
                { path: 'src/lib', kind: 'directory' },
                { path: 'src/lib/deep.ts', kind: 'file' },
              ],
              truncated: false,
            },
          };
        default:
          throw new Error(`unexpected host tool ${params.name}`);
      }
    },
  );
}

afterEach(async () => {
  await client?.close().catch(() => {});
  await pair?.server.dispose();
});

const text = (result: Awaited<ReturnType<Client['callTool']>>) => JSON.stringify(result.content);

describe('ctx.shell over run_command', () => {
  it('runs the command with the timeout clamped to 1..600 s and maps the output', async () => {
    await open();
    const result = await client.callTool({
      name: 'shell_run',
      arguments: { command: 'echo hi', timeoutMs: 1_500 },
    });
    expect(result.structuredContent).toMatchObject({
      exitCode: 0,
      stdout: 'hi\n',
      timedOut: false,
    });
    await client.callTool({ name: 'shell_run', arguments: { command: 'x', timeoutMs: 10 } });
    await client.callTool({ name: 'shell_run', arguments: { command: 'y', timeoutMs: 9_000_000 } });
    expect(calls).toEqual([
      { name: 'run_command', arguments: { command: 'echo hi', timeout_seconds: 2 } },
      { name: 'run_command', arguments: { command: 'x', timeout_seconds: 1 } },
      { name: 'run_command', arguments: { command: 'y', timeout_seconds: 600 } },
    ]);
  });

  it('rejects options run_command cannot honour before any host call', async () => {
    await open();
    const result = await client.callTool({ name: 'shell_env', arguments: {} });
    expect(text(result)).toContain('[SHELL_OPTION_UNSUPPORTED]');
    expect(calls).toEqual([]);
  });
});

describe('ctx.fs over file host tools', () => {
  it('writes with write_file and edits with edit_file, reading before and after', async () => {
    await open();
    const written = await client.callTool({
      name: 'write',
      arguments: { path: 'b.txt', content: 'beta\n' },
    });
    expect(written.structuredContent).toMatchObject({ operation: 'create', after: 'beta\n' });
    const edited = await client.callTool({ name: 'edit', arguments: {} });
    expect(edited.structuredContent).toMatchObject({ before: 'alpha\n', after: 'omega\n' });
    expect(calls.map((call) => call.name)).toEqual([
      'write_file',
      'read_file',
      'edit_file',
      'read_file',
    ]);
    expect(calls[2]?.arguments).toEqual({ path: 'a.txt', old_str: 'alpha', new_str: 'omega' });
  });

  it('refuses guarded writes, replaceAll edits and paths outside the project without a host call', async () => {
    await open();
    expect(text(await client.callTool({ name: 'write_guarded', arguments: {} }))).toContain(
      '[FS_GUARD_UNSUPPORTED]',
    );
    expect(text(await client.callTool({ name: 'edit_all', arguments: {} }))).toContain(
      '[FS_GUARD_UNSUPPORTED]',
    );
    expect(text(await client.callTool({ name: 'outside', arguments: {} }))).toContain(
      '[FS_OUTSIDE_PROJECT]',
    );
    expect(calls).toEqual([]);
  });

  it('lists only the direct children of a directory', async () => {
    await open();
    const listed = await client.callTool({ name: 'list', arguments: {} });
    expect(listed.structuredContent).toEqual({
      result: [
        ['a.ts', 'file'],
        ['lib', 'directory'],
      ],
    });
    expect(calls[0]).toEqual({
      name: 'list_files',
      arguments: { path: 'src', max_depth: 1, max_entries: 2000 },
    });
  });
});
