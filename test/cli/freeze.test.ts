/**
 * The first run's freeze, in process through the CLI library: a server that finishes after the
 * registries froze is rejected and reported, the rest stay usable, and closing the project scope
 * stops every server.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type McpServerConfig, mcpEntry } from '@clat/adapter-mcp';
import { defaultComposition, formatMcpStatus, resolveClatHome } from '@clat/cli';
import { createHost, type Host } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { CLI_FIXTURES, NOTES_SERVER, useCliSandbox } from './support.js';

let session: Host | undefined;

const sandbox = useCliSandbox(undefined, {
  teardown: async () => {
    await session?.close();
    session = undefined;
  },
});

async function until(check: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 30_000;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function stdio(name: string, args: string[], env: Record<string, string> = {}): McpServerConfig {
  const { command, args: full } = sandbox.node(args[0] as string, ...args.slice(1));
  return { transport: 'stdio', name, origin: 'user', command, args: full, env };
}

describe('first-run freeze', () => {
  it('rejects a server that finishes after the freeze and keeps the others', async () => {
    const gate = join(sandbox.root, 'go');
    const home = resolveClatHome({ CLAT_HOME: sandbox.home }, sandbox.root);
    const composition = defaultComposition();
    const entries = [
      stdio('fast', [NOTES_SERVER], { MCP_NOTES_DIR: join(sandbox.root, 'fast') }),
      stdio('late', [join(CLI_FIXTURES, 'gated-start.mjs'), gate, NOTES_SERVER], {
        MCP_NOTES_DIR: join(sandbox.root, 'late'),
      }),
    ].map(mcpEntry);
    session = createHost({
      projectRoot: sandbox.project,
      entries,
      connectors: await composition.connectors({ env: process.env, home, entries }),
      nativeTools: composition.nativeTools({ projectRoot: sandbox.project }),
    });
    session.start();
    const mount = session.mount;
    await until(() => mount.summary().connected === 1, 'the fast server');
    expect(mount.summary()).toMatchObject({ configured: 2, connecting: 1, connected: 1 });

    // The first run waits (here briefly: the late server is gated) and then freezes.
    const run = await session.beginRun({ mode: 'project-write', initialWaitMs: 100 });
    expect(session.registry.frozen).toBe(true);
    expect(session.prompts.frozen).toBe(true);
    const late = () => mount.summary().servers.find((server) => server.name === 'late');
    expect(late()?.warnings.join('\n')).toContain('still connecting when the registries froze');

    await writeFile(gate, 'go\n');
    await until(() => late()?.state === 'failed', 'the late server to be rejected');
    expect(late()?.failure).toMatch(/froze/);
    expect(late()?.tools).toBe(0);
    const names = session.registry.list().map((tool) => tool.name);
    expect(names).toContain('mcp_fast_add_note');
    expect(names.some((name) => name.startsWith('mcp_late_'))).toBe(false);
    expect(formatMcpStatus(mount.summary())).toMatch(
      /MCP servers: 2 configured · 0 connecting · 1 connected · 1 failed \(registries frozen\)/,
    );

    // Servers are shared across runs: the fast one still answers in a second run.
    const first = await session.pipeline.call(
      'mcp_fast_add_note',
      { title: 'a', body: 'b' },
      run.context,
    );
    expect(first.isError).not.toBe(true);
    await run.end();
    const second = await session.beginRun({ mode: 'project-write' });
    const listed = await session.pipeline.call('mcp_fast_list_notes', {}, second.context);
    expect(listed.content).toContain('"title": "a"');
    await second.end();

    await session.close();
    session = undefined;
    expect(sandbox.survivors()).toEqual([]);
  });
});
