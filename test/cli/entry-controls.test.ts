/**
 * mcp.json entry controls through the real binary: `disabled` with `clat mcp enable|disable`,
 * per-server includeTools/excludeTools, and a trusted project's own `.clat/mcp.json` (merged
 * under the user's file, never read before trust).
 */
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LIMITS } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { CLI_FIXTURES, parseJsonOutput, STDIO_FIXTURES, useCliSandbox } from './support.js';

let marker: string;

const sandbox = useCliSandbox(async () => {
  marker = join(sandbox.root, 'spawned');
});

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

interface ToolsJson {
  tools: { name: string }[];
}

describe('mcp.json entry controls', () => {
  it('keeps a disabled entry unstarted until clat mcp enable', async () => {
    await sandbox.writeMcp({
      mcpServers: {
        notes: sandbox.notesServer(),
        other: { ...sandbox.node(join(CLI_FIXTURES, 'touch-and-exit.mjs'), marker) },
      },
    });
    const disabled = await sandbox.run(['mcp', 'disable', 'other']);
    expect(disabled.stdout).toContain('Disabled server "other"');
    expect(
      ((await sandbox.readMcp()) as { mcpServers: { other: unknown } }).mcpServers.other,
    ).toMatchObject({
      disabled: true,
    });
    expect((await sandbox.run(['mcp', 'list'])).stdout).toMatch(/other {2}stdio .*\(disabled\)/);
    const status = await sandbox.run(['mcp', '--trust']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain('"other" is disabled; "clat mcp enable other" starts it again');
    expect(status.stdout).toContain('1 configured');
    expect(await exists(marker)).toBe(false);

    const again = await sandbox.run(['mcp', 'disable', 'other']);
    expect(again.stdout).toContain('was already disabled');
    const enabled = await sandbox.run(['mcp', 'enable', 'other']);
    expect(enabled.stdout).toContain('Enabled server "other"');
    await sandbox.run(['mcp', '--trust']);
    expect(await exists(marker)).toBe(true);
    const missing = await sandbox.run(['mcp', 'enable', 'nope']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no server named "nope"');
  });

  it('registers only the tools includeTools/excludeTools allow', async () => {
    await sandbox.writeMcp({
      notes: { ...sandbox.notesServer(), includeTools: ['*_note'], excludeTools: ['delete_*'] },
    });
    const tools = parseJsonOutput<ToolsJson>(await sandbox.run(['tools', '--json', '--trust']));
    const names = tools.tools.map((tool) => tool.name).filter((name) => name.startsWith('mcp_'));
    expect(names.sort()).toEqual(['mcp_notes_add_note', 'mcp_notes_get_note']);
    const status = await sandbox.run(['mcp', '--trust']);
    expect(status.stdout).toContain('3 tools of "notes" left out by includeTools/excludeTools');
  });

  it('sets includeTools/excludeTools with clat mcp add --include-tools/--exclude-tools', async () => {
    const notes = sandbox.notesServer() as {
      command: string;
      args: string[];
      env: Record<string, string>;
    };
    const command = [notes.command, ...notes.args];
    const env = Object.entries(notes.env).map(([key, value]) => `${key}=${value}`);
    const bad = await sandbox.run([
      'mcp',
      'add',
      'notes',
      '--include-tools',
      'add_note,,x',
      '--',
      ...command,
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      'clat mcp add: --include-tools: must not be empty; nothing was written',
    );
    const added = await sandbox.run([
      'mcp',
      'add',
      'notes',
      '--env',
      env[0] as string,
      '--include-tools',
      '*_note, list_notes',
      '--exclude-tools',
      'delete_*',
      '--exclude-tools',
      'list_*',
      '--',
      ...command,
    ]);
    expect(added.code, added.stderr).toBe(0);
    const got = parseJsonOutput<{ includeTools: string[]; excludeTools: string[] }>(
      await sandbox.run(['mcp', 'get', 'notes', '--json']),
    );
    expect(got).toMatchObject({
      includeTools: ['*_note', 'list_notes'],
      excludeTools: ['delete_*', 'list_*'],
    });
    // The text line says so too, not only --json.
    const line = await sandbox.run(['mcp', 'get', 'notes']);
    expect(line.stdout).toContain('  (only tools *_note, list_notes; no tools delete_*, list_*)\n');
    const tools = parseJsonOutput<ToolsJson>(await sandbox.run(['tools', '--json', '--trust']));
    const names = tools.tools.map((tool) => tool.name).filter((name) => name.startsWith('mcp_'));
    expect(names.sort()).toEqual(['mcp_notes_add_note', 'mcp_notes_get_note']);
  });

  it('applies the 512-tool cap to the tools includeTools keeps, and says how to narrow a server over it', async () => {
    // 600 tools over 6 pages: the cap once refused the raw listing, includeTools or not.
    const many = sandbox.node(join(STDIO_FIXTURES, 'many-tools.mjs'));
    await sandbox.writeMcp({ mcpServers: { many: { ...many, includeTools: ['tool_000'] } } });
    const tools = parseJsonOutput<ToolsJson>(await sandbox.run(['tools', '--json', '--trust']));
    const names = tools.tools.map((tool) => tool.name).filter((name) => name.startsWith('mcp_'));
    expect(names).toEqual(['mcp_many_tool_000']);
    const narrowed = await sandbox.run(['mcp', '--trust']);
    expect(narrowed.code, narrowed.stderr).toBe(0);
    expect(narrowed.stdout).toContain('599 tools of "many" left out by includeTools/excludeTools');

    await sandbox.writeMcp({ mcpServers: { many } });
    const over = await sandbox.run(['mcp', '--trust']);
    expect(over.code).toBe(1);
    expect(over.stdout).toContain(
      `MCP server "many" lists 600 tools, over the limit of ${LIMITS.toolsPerServer} per server; narrow them with "includeTools" or "excludeTools" in its mcp.json entry`,
    );
  });

  it('merges a trusted project .clat/mcp.json under the user file, never reading it before trust', async () => {
    await sandbox.writeMcp({
      shared: { command: 'user-wins-this-name-and-never-starts', disabled: true },
    });
    await mkdir(join(sandbox.project, '.clat'));
    await writeFile(
      join(sandbox.project, '.clat', 'mcp.json'),
      JSON.stringify({
        mcpServers: {
          notes: sandbox.notesServer(),
          shared: sandbox.node(join(CLI_FIXTURES, 'touch-and-exit.mjs'), marker),
          broken: { command: 42 },
        },
      }),
    );
    const untrusted = await sandbox.run(['tools', '--json']);
    expect(untrusted.code).not.toBe(0);
    expect(untrusted.stderr).toContain('is not trusted');
    expect(untrusted.stderr).not.toContain('broken');

    const trusted = await sandbox.run(['tools', '--json', '--trust']);
    expect(trusted.stderr).toContain('.clat/mcp.json: broken.command');
    const names = parseJsonOutput<ToolsJson>(trusted).tools.map((tool) => tool.name);
    expect(names).toContain('mcp_notes_add_note');
    const status = await sandbox.run(['mcp', '--trust']);
    expect(status.stdout).toContain('entry "shared" is replaced by the same-named entry in');
    expect(await exists(marker)).toBe(false);
  });
});
