/** `clat call`: one tool call through the permission pipeline, headless. */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, STDIO_FIXTURES, useCliSandbox } from './support.js';

const sandbox = useCliSandbox(async () => {
  await sandbox.writeMcp({ notes: sandbox.notesServer() });
  await sandbox.run(['trust']);
});

describe('clat call', () => {
  it('runs a plugin tool and a native tool through the pipeline', async () => {
    const added = await sandbox.run([
      'call',
      'mcp_notes_add_note',
      JSON.stringify({ title: 'e2e', body: 'written by clat call' }),
    ]);
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    const { id } = JSON.parse(added.stdout) as { id: string };
    const stored = await readFile(join(sandbox.root, 'notes', 'notes.json'), 'utf8');
    expect(stored).toContain(id);
    expect(stored).toContain('written by clat call');

    const read = await sandbox.run(['call', 'read_file', '{"path":"README.md"}']);
    expect(read.code).toBe(0);
    expect(read.stdout).toContain('# e2e project');
  });

  it('denies an effect the mode asks about when there is no terminal, with exit code 3', async () => {
    const result = await sandbox.run(['call', 'mcp_notes_delete_note', '{"id":"x"}']);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      'mcp_notes_delete_note was not approved: destructive needs approval, no approver is attached (headless) and no saved approval of this project allows it (no terminal to ask; rerun in a terminal, where "p" allows it in this project from then on, headless too, or with a mode that allows it, e.g. --mode full-access) [PERMISSION_DENIED]',
    );

    const readOnly = await sandbox.run([
      'call',
      'mcp_notes_add_note',
      '{"title":"t","body":"b"}',
      '--mode',
      'read-only',
    ]);
    expect(readOnly.code).toBe(3);
    expect(readOnly.stderr).toContain('write needs approval');
  });

  it('runs the destructive call in full-access mode', async () => {
    const added = await sandbox.run([
      'call',
      'mcp_notes_add_note',
      '{"title":"gone","body":"soon"}',
    ]);
    const { id } = JSON.parse(added.stdout) as { id: string };
    const deleted = await sandbox.run([
      'call',
      'mcp_notes_delete_note',
      JSON.stringify({ id }),
      '--mode',
      'full-access',
    ]);
    expect(deleted.code).toBe(0);
    expect(await readFile(join(sandbox.root, 'notes', 'notes.json'), 'utf8')).not.toContain(id);
  });

  it('names the closest tool, server, command or argument of a typo, and only a close one', async () => {
    const tool = await sandbox.run(['call', 'mcp_notes_add_notes', 'title=t', 'body=b']);
    expect(tool.code).toBe(2);
    expect(tool.stderr).toContain(
      'tool "mcp_notes_add_notes" is not registered (did you mean "mcp_notes_add_note"?); run "clat tools" for the list',
    );
    const arg = await sandbox.run(['call', 'mcp_notes_add_note', 'titel=t', 'body=b']);
    expect(arg.code).toBe(2);
    expect(arg.stderr).toContain('the tool has no argument "titel" (did you mean "title"?)');
    const listed = await sandbox.run(['tools', 'notse']);
    expect(listed.code).toBe(1);
    expect(listed.stderr).toContain('no server or tool named "notse" (did you mean "notes"?)');
    const command = await sandbox.run(['toosl']);
    expect(command.code).toBe(2);
    expect(command.stderr).toBe(
      'clat: unknown command "toosl" (did you mean "tools"?); run "clat --help" for the list [CLI_USAGE]\n',
    );
    const sub = await sandbox.run(['mcp', 'lsit']);
    expect(sub.stderr).toContain('unknown subcommand "lsit" (did you mean "list"?)');
    const removed = await sandbox.run(['mcp', 'remove', 'ntoes']);
    expect(removed.code).toBe(1);
    expect(removed.stderr).toContain('no server named "ntoes" (did you mean "notes"?)');
    const got = await sandbox.run(['mcp', 'get', 'note']);
    expect(got.stderr).toContain('mcp.json: no server named "note" (did you mean "notes"?)');
    // Another word gets no guess.
    const other = await sandbox.run(['call', 'weather_today']);
    expect(other.stderr).not.toContain('did you mean');
  });

  it('reports bad usage clearly', async () => {
    const unknown = await sandbox.run(['call', 'no_such_tool']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('tool "no_such_tool" is not registered; run "clat tools"');
    const badJson = await sandbox.run(['call', 'read_file', '{path:']);
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toContain('arguments are not valid JSON');
    const badMode = await sandbox.run(['call', 'read_file', '{}', '--mode', 'yolo']);
    expect(badMode.code).toBe(2);
    expect(badMode.stderr).toContain('read-only, project-write, full-access');
    // Every expected failure is one line ending in its code.
    for (const result of [unknown, badJson, badMode]) {
      expect(result.stderr).toMatch(/^clat: [^\n]+ \[CLI_USAGE\]\n$/);
    }
  });

  it("reports a server that crashes mid-call with the MCP client's code, not INTERNAL", async () => {
    await sandbox.writeMcp({
      crashy: sandbox.node(join(REPO_ROOT, 'test/fixtures/mcp-servers/crash-mid-call.mjs')),
    });
    const crashed = await sandbox.run(['call', 'mcp_crashy_crash', '{}', '--mode', 'full-access']);
    expect(crashed.code).toBe(1);
    expect(crashed.stdout).toBe('');
    expect(crashed.stderr).toMatch(/^clat: [^\n]*crashy[^\n]* \[MCP_CONNECTION_CLOSED\]\n$/);
  });

  it('lists tools with effects and sources', async () => {
    const result = await sandbox.run(['tools', '--json']);
    const { tools } = JSON.parse(result.stdout) as {
      tools: { name: string; effect: string; source: { kind: string; id: string } }[];
    };
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(byName.read_file).toMatchObject({ effect: 'read', source: { kind: 'native' } });
    expect(byName.mcp_notes_add_note).toMatchObject({
      effect: 'write',
      source: { kind: 'mcp', id: 'notes' },
    });
    expect(byName.mcp_notes_delete_note?.effect).toBe('destructive');
    const text = await sandbox.run(['tools']);
    expect(text.stdout).toMatch(/mcp_notes_search_notes\s+external-read\s+mcp:notes/);
  });

  it('starts user stdio servers in the CLAT home, never in the project', async () => {
    await sandbox.writeMcp({
      here: sandbox.node(join(REPO_ROOT, 'plugins/mcp-notes/dist/package/server.mjs')),
    });
    const added = await sandbox.run(['call', 'mcp_here_add_note', '{"title":"cwd","body":"b"}']);
    expect(added.code).toBe(0);
    expect(existsSync(join(sandbox.home, 'notes.json'))).toBe(true);
    expect(existsSync(join(sandbox.project, 'notes.json'))).toBe(false);
  });

  it('fails a result over the 4 MiB frame limit at once when the server writes its id last', async () => {
    // The MCP SDK serializes `{"result":…,"jsonrpc":"2.0","id":N}`: the skipped frame's head has
    // no id, its tail has. Without it the call waited out the 120 s request timeout.
    await sandbox.writeMcp({
      big: {
        ...sandbox.node(join(STDIO_FIXTURES, 'oversize-frame.mjs')),
        env: { FIXTURE_ID_LAST: '1', FIXTURE_FRAME_BYTES: String(5 * 1024 * 1024) },
      },
    });
    const result = await sandbox.run(['call', 'mcp_big_flood', '{}', '--mode', 'full-access']);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/the result exceeded the 4 MiB frame limit \(\d+ bytes\)/);
    expect(result.code).toBe(1);
  });

  it('says when the server asked for is still connecting as its tool list froze, with exit 1', async () => {
    // Its tools/list answers after the wait for the first run's surface (20 s) ends, as a slow
    // server's (or an npx download's) would.
    await sandbox.writeMcp({
      late: {
        ...sandbox.node(join(STDIO_FIXTURES, 'slow-list.mjs')),
        env: { SLOW_LIST_MS: '28000' },
      },
    });
    const result = await sandbox.run(['tools', '--server', 'late']);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'clat: server "late" is still connecting; run "clat mcp" for details\n',
    );
    expect(result.code).toBe(1);
  }, 90_000);

  it('says a tool is missing because its server failed, not that the name is wrong, with exit 1', async () => {
    // A port nothing listens on: the server is down.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await sandbox.writeMcp({ down: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } });
    const result = await sandbox.run(['call', 'mcp_down_echo', 'text=x']);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^clat: tool "mcp_down_echo" is not registered: server "down" failed: [^\n]*ECONNREFUSED[^\n]*; run "clat mcp" for details \[CLI_SERVER_NOT_FOUND\]\n$/,
    );
    expect(result.code).toBe(1);
    // A name no server could own is still a typo.
    const typo = await sandbox.run(['call', 'no_such_tool']);
    expect(typo.stderr).toContain('run "clat tools" for the list');
    expect(typo.code).toBe(2);
  });

  it("names a crashed server's own error line, not the runtime banner or its stack", async () => {
    await sandbox.writeMcp({
      crash: sandbox.node(join(STDIO_FIXTURES, 'throws-at-start.mjs')),
    });
    const result = await sandbox.run(['call', 'mcp_crash_echo', 'text=x']);
    expect(result.code).toBe(1);
    // The exit is quoted by the error line, and the tail by the lines around it.
    expect(result.stderr).toContain(
      'exited with code 1 (stderr: Error: startup exploded: DATABASE_URL is not set)',
    );
    expect(result.stderr).toContain(
      "throws-at-start.mjs:4 | if (url === undefined) throw new Error('startup exploded: DATABASE_URL is not set');; run",
    );
    expect(result.stderr).not.toContain('Node.js v');
    expect(result.stderr).not.toMatch(/ \| at /);
    // The status shows the rest of the tail in the order written, and says it is the rest.
    const status = await sandbox.run(['mcp']);
    expect(status.stdout).toMatch(/stderr \(\d+ more of its last \d+ lines, oldest first\):/);
  });

  it('quotes a log line a server wrote to stdout, where only JSON-RPC may go', async () => {
    await sandbox.writeMcp({ chatty: sandbox.node(join(STDIO_FIXTURES, 'stdout-logger.mjs')) });
    const result = await sandbox.run(['call', 'mcp_chatty_echo', 'text=x']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      '(stdout, ignored: MCP servers write only JSON-RPC there, logs go to stderr) sent a line that is not JSON (27 bytes): Server started on port 3000',
    );
  });
});
