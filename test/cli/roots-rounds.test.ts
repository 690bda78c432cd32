/**
 * Roots and input_required through the real `clat` binary: server-filesystem started without
 * any directory gets the trusted project as its one root and serves it, and a 2026-07-28 SDK v2
 * server's input rounds complete (roots, no person needed) or stop at the round limit.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MCP_LIMITS } from '@clat/adapter-mcp';
import { describe, expect, it } from 'vitest';
import { parseJsonOutput, REPO_ROOT, useCliSandbox } from './support.js';

const FILESYSTEM = join(
  REPO_ROOT,
  'test/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js',
);
const ROUNDS = join(REPO_ROOT, 'test/fixtures/bridge/rounds-server.mjs');

const sandbox = useCliSandbox(async () => {
  await writeFile(join(sandbox.project, 'notes.txt'), 'hello\n');
  await sandbox.writeMcp({
    // No directory arguments (the marker goes in the process title, not argv): roots only.
    filesystem: { command: process.execPath, args: [`--title=${sandbox.marker}`, FILESYSTEM] },
    rounds: sandbox.node(ROUNDS),
  });
  await sandbox.run(['trust']);
});

describe('roots through clat', () => {
  it('lets server-filesystem without configured paths list the project', async () => {
    const listed = await sandbox.run([
      'call',
      'mcp_filesystem_list_directory',
      JSON.stringify({ path: sandbox.project }),
    ]);
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('[FILE] notes.txt');
    expect(listed.stdout).toContain('[FILE] README.md');

    // The root is the project only: a directory beside it stays out of reach.
    const outside = await sandbox.run([
      'call',
      'mcp_filesystem_list_directory',
      JSON.stringify({ path: sandbox.home }),
    ]);
    expect(`${outside.stdout}${outside.stderr}`).toMatch(/outside allowed directories/i);
  });

  it('keeps the configured directory of an entry added with --no-roots ("roots": false)', async () => {
    const data = join(sandbox.root, 'data');
    await mkdir(data);
    await writeFile(join(data, 'kept.txt'), 'kept\n');
    // Offered the project root, server-filesystem drops the directory its arguments name, and
    // the status says how to keep it.
    await sandbox.writeMcp({
      filesystem: {
        command: process.execPath,
        args: [`--title=${sandbox.marker}`, FILESYSTEM, data],
      },
    });
    const dropped = await sandbox.run([
      'call',
      'mcp_filesystem_list_directory',
      JSON.stringify({ path: data }),
    ]);
    expect(`${dropped.stdout}${dropped.stderr}`).toMatch(/outside allowed directories/i);
    expect((await sandbox.run(['mcp'])).stdout).toContain(
      'to keep the directories its arguments name instead, set "roots": false on its entry',
    );
    await sandbox.writeMcp({});
    const added = await sandbox.run([
      'mcp',
      'add',
      'filesystem',
      '--no-roots',
      '--',
      process.execPath,
      `--title=${sandbox.marker}`,
      FILESYSTEM,
      data,
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect(
      ((await sandbox.readMcp()) as { filesystem: { roots?: boolean } }).filesystem,
    ).toMatchObject({ roots: false });
    expect((await sandbox.run(['mcp', 'list'])).stdout).toContain('(roots not offered)');
    const listed = await sandbox.run([
      'call',
      'mcp_filesystem_list_directory',
      JSON.stringify({ path: data }),
    ]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('[FILE] kept.txt');
    const status = await sandbox.run(['mcp']);
    expect(status.stdout).toContain('roots: not offered');
  });

  it('shows roots support per server in clat mcp', async () => {
    const status = parseJsonOutput<{
      servers: { name: string; state: string; roots?: { offered: boolean; requests: number } }[];
    }>(await sandbox.run(['mcp', '--json']));
    for (const name of ['filesystem', 'rounds']) {
      expect(status.servers.find((s) => s.name === name)).toMatchObject({
        state: 'connected',
        roots: { offered: true },
      });
    }
    const text = await sandbox.run(['mcp']);
    expect(text.stdout).toMatch(/roots: project root offered; the server asked \d+ times?/);
  });
});

describe('input_required through clat', () => {
  it('completes a modern call whose input is the project root', async () => {
    const result = await sandbox.run(['call', 'mcp_rounds_roots', '{}']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      roots: [{ uri: pathToFileURL(sandbox.project).href, name: 'project' }],
    });
  });

  it('stops a server that keeps asking with one clear error', async () => {
    const result = await sandbox.run(['call', 'mcp_rounds_endless', '{}']);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      `MCP server "rounds" still asked for input after ${MCP_LIMITS.inputRounds} rounds of tools/call endless; CLAT stopped retrying`,
    );
  });
});
