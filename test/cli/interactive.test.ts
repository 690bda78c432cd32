/**
 * The interactive session of the real `clat` binary under tmux: background mount, /mcp, an
 * approval prompt, elicitation answered through the same question port as ask_user, and Esc
 * cancelling a running plugin call and a running native command.
 */
import { existsSync, readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type FakeChatServer, fakeModelProvider, startFakeChatServer } from './chat-server.js';
import { CLAT_BIN, CLI_FIXTURES, NOTES_SERVER, useCliSandbox } from './support.js';
import { hasTmux, TmuxSession } from './tmux.js';

/** Polls `check` (hang guard: 10 s). */
async function until(check: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

let tmux: TmuxSession;
let chat: FakeChatServer | undefined;

const sandbox = useCliSandbox(
  async () => {
    tmux = new TmuxSession(`clat-tmux-${process.pid}-${Date.now()}`);
  },
  {
    teardown: async () => {
      tmux.kill();
      await chat?.close();
      chat = undefined;
    },
    settleMs: 3_000,
  },
);

describe.skipIf(!hasTmux())('interactive clat (tmux)', () => {
  it('shows /mcp, asks for approval and questions, and cancels running calls with Esc', async () => {
    await sandbox.writeMcp({
      notes: sandbox.notesServer(),
      ask: sandbox.node(join(CLI_FIXTURES, 'ask-server.mjs')),
    });
    tmux.startClat(sandbox);
    await tmux.waitFor('MCP servers: 2 configured · 0 connecting · 2 connected');

    let mark = tmux.capture().length;
    tmux.line('/mcp');
    await tmux.waitFor(/notes\s+stdio\s+connected .*5 tools/, mark);
    await tmux.waitFor(/ask\s+stdio\s+connected .*2 tools/, mark);

    // Destructive effect in project-write: the mode table asks; the user says no.
    mark = tmux.capture().length;
    tmux.line('/call mcp_notes_delete_note {"id":"nope"}');
    await tmux.waitFor('Allow mcp_notes_delete_note? [y/N]', mark);
    tmux.line('n');
    await tmux.waitFor('mcp_notes_delete_note was not approved: denied by the user', mark);

    // Elicitation from a plugin reaches the user through the UserAsker port.
    mark = tmux.capture().length;
    tmux.line('/call mcp_ask_ask_name');
    await tmux.waitFor('What is your name?', mark);
    // A required field says what an empty answer does.
    await tmux.waitFor('— Name (required; an empty answer declines the form)', mark);
    expect(tmux.capture().slice(mark)).toContain('What is your name?\n\n  — Name');
    tmux.line('Ada');
    await tmux.waitFor(/"action":"accept".*"name":"Ada"/, mark);

    // The native ask_user tool uses the same question port.
    mark = tmux.capture().length;
    tmux.line(
      '/call ask_user {"question":"Pick a colour","options":[{"label":"red"},{"label":"blue"}]}',
    );
    await tmux.waitFor('2. blue', mark);
    tmux.line('2');
    await tmux.waitFor('"answer":"blue"', mark);

    // Esc cancels a plugin call that would never return; the connection stays usable.
    mark = tmux.capture().length;
    tmux.line('/call mcp_ask_wait_forever');
    await tmux.waitFor('running mcp_ask_wait_forever… (Esc cancels)', mark);
    tmux.key('Escape');
    await tmux.waitFor(/cancelled: .*cancelled by Esc/, mark);
    mark = tmux.capture().length;
    tmux.line('/call mcp_notes_list_notes');
    await tmux.waitFor(/"notes": \[\]/, mark);

    // Esc cancels a native run_command and its process group is gone.
    mark = tmux.capture().length;
    tmux.line('/mode full-access');
    await tmux.waitFor('mode: full-access', mark);
    tmux.line(`/call run_command {"command":"sleep 300; echo ${sandbox.marker}-sleeper"}`);
    await tmux.waitFor('running run_command… (Esc cancels)', mark);
    const sleeper = () => sandbox.survivors(`${sandbox.marker}-sleeper`).length;
    expect(sleeper()).toBeGreaterThan(0);
    tmux.key('Escape');
    await tmux.waitFor(/cancelled: .*cancelled by Esc/, mark);
    // The kill of the process group follows the cancel at once; allow it a moment to be reaped.
    await until(() => sleeper() === 0, 'the cancelled command to be killed');

    // /exit closes the project: every server is stopped.
    mark = tmux.capture().length;
    tmux.line('/exit');
    await tmux.waitFor('EXITED:0', mark);
    expect(sandbox.survivors()).toEqual([]);
  });

  it('asks for trust on a terminal before anything starts, and records a yes', async () => {
    const marker = join(sandbox.root, 'spawned');
    await sandbox.writeMcp({
      probe: sandbox.node(join(CLI_FIXTURES, 'touch-and-exit.mjs'), marker),
    });
    tmux.start([process.execPath, CLAT_BIN], sandbox.project, { CLAT_HOME: sandbox.home });
    await tmux.waitFor('Trust this project? [y/N]');
    expect(existsSync(marker)).toBe(false);
    tmux.line('y');
    await tmux.waitFor('MCP servers: 1 configured · 0 connecting · 0 connected · 1 failed');
    expect(existsSync(marker)).toBe(true);
    const trusted = await sandbox.run(['trust', '--list']);
    expect(trusted.stdout).toBe(`${sandbox.project}\n`);
    tmux.line('/exit');
    await tmux.waitFor('EXITED:0');
    // The session on a terminal leaves the binary's code cache of its own (bin-main-bundle.ts).
    const caches = readdirSync(join(sandbox.home, 'cache', 'code'));
    expect(caches.filter((name) => name.endsWith('-session.bin'))).toHaveLength(1);
  });

  it('exits without starting anything when trust is declined', async () => {
    const marker = join(sandbox.root, 'spawned');
    await sandbox.writeMcp({
      probe: sandbox.node(join(CLI_FIXTURES, 'touch-and-exit.mjs'), marker),
    });
    tmux.start([process.execPath, CLAT_BIN], sandbox.project, { CLAT_HOME: sandbox.home });
    await tmux.waitFor('Trust this project? [y/N]');
    tmux.line('n');
    await tmux.waitFor('EXITED:1');
    expect(tmux.capture()).toContain('is not trusted, so no MCP server was started');
    expect(existsSync(marker)).toBe(false);
  });

  it('says the refusal on a line of its own when the trust question gets Ctrl-C', async () => {
    await sandbox.writeMcp({});
    tmux.start([process.execPath, CLAT_BIN, 'tools'], sandbox.project, { CLAT_HOME: sandbox.home });
    await tmux.waitFor('Trust this project? [y/N]');
    tmux.key('C-c');
    await tmux.waitFor('EXITED:1');
    expect(tmux.capture()).toMatch(
      /Trust this project\? \[y\/N\] \nclat: project .* is not trusted/,
    );
  });

  it('shows a progress line on the terminal while servers connect', async () => {
    const gate = join(sandbox.root, 'go');
    await sandbox.writeMcp({
      late: sandbox.node(join(CLI_FIXTURES, 'gated-start.mjs'), gate, NOTES_SERVER),
    });
    tmux.start([process.execPath, CLAT_BIN, 'mcp', '--trust'], sandbox.project, {
      CLAT_HOME: sandbox.home,
      MCP_NOTES_DIR: join(sandbox.root, 'notes'),
    });
    await tmux.waitFor(/connecting MCP servers: 0\/1 connected, waiting for late/);
    await writeFile(gate, 'go\n');
    await tmux.waitFor('EXITED:0');
    const pane = tmux.capture();
    expect(pane).toMatch(/late\s+stdio\s+connected/);
    expect(pane).not.toContain('waiting for late');
  });

  it('runs a model turn with an approval prompt, and Esc cancels a hanging model call', async () => {
    chat = await startFakeChatServer([
      { toolCalls: [{ name: 'run_command', arguments: { command: 'echo hi-from-model' } }] },
      { text: 'Done: the command printed hi-from-model.' },
      { hang: true },
    ]);
    await sandbox.writeConfig({ provider: fakeModelProvider(chat.url) });
    await sandbox.writeMcp({});
    tmux.start([process.execPath, CLAT_BIN, '--trust'], sandbox.project, {
      CLAT_HOME: sandbox.home,
    });
    await tmux.waitFor('MCP servers: 0 configured');
    let mark = tmux.capture().length;
    tmux.line('run echo for me');
    await tmux.waitFor('Approve run_command? effect: execute', mark);
    await tmux.waitFor('Allow run_command? [y/N]', mark);
    tmux.line('y');
    await tmux.waitFor('Done: the command printed hi-from-model.', mark);
    const toolMessage = chat.requests[1]?.body.messages.find((m) => m.role === 'tool');
    expect(toolMessage?.content).toContain('hi-from-model');

    mark = tmux.capture().length;
    tmux.line('and now think forever');
    await tmux.waitFor('asking fake-model… (Esc cancels)', mark);
    await until(() => chat?.requests.length === 3, 'the third model request');
    tmux.key('Escape');
    await tmux.waitFor(/cancelled: /, mark);
    tmux.line('/exit');
    await tmux.waitFor('EXITED:0', mark);
  });
});
