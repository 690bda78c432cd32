/**
 * Esc, Ctrl-C and Ctrl-D in the interactive session of the real `clat` binary under tmux, at
 * the moments a person presses them: during a model turn's tool call (the conversation must go
 * on), while the first call waits for servers to connect (nothing may run, nothing may freeze),
 * at the prompt with a half-typed line, and after Ctrl-D while a call still runs.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type FakeChatServer, fakeModelProvider, startFakeChatServer } from './chat-server.js';
import { CLAT_BIN, CLI_FIXTURES, NOTES_SERVER, useCliSandbox } from './support.js';
import { hasTmux, TmuxSession } from './tmux.js';

let tmux: TmuxSession;
let chat: FakeChatServer | undefined;

const sandbox = useCliSandbox(
  async () => {
    tmux = new TmuxSession(`clat-interrupts-${process.pid}-${Date.now()}`);
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

function startSession(...flags: string[]): void {
  tmux.start([process.execPath, CLAT_BIN, '--trust', ...flags], sandbox.project, {
    CLAT_HOME: sandbox.home,
    MCP_NOTES_DIR: join(sandbox.root, 'notes'),
    NO_COLOR: '1',
  });
}

describe.skipIf(!hasTmux())('interrupting the session (tmux)', () => {
  it('Esc in a model turn’s tool call ends the turn, and the next prompt still reaches the model', async () => {
    chat = await startFakeChatServer([
      {
        toolCalls: [
          { name: 'run_command', arguments: { command: 'sleep 30' } },
          { name: 'list_files', arguments: { path: '.' } },
        ],
      },
      { text: 'Fine: the sleep was cancelled.' },
      ...Array.from({ length: 32 }, () => ({
        toolCalls: [{ name: 'list_files', arguments: { path: '.' } }],
      })),
    ]);
    await sandbox.writeConfig({ provider: fakeModelProvider(chat.url) });
    await sandbox.writeMcp({});
    startSession('--mode', 'full-access');
    await tmux.waitFor('MCP servers: 0 configured');

    let mark = tmux.capture().length;
    tmux.line('sleep a while');
    await tmux.waitFor('running run_command… (Esc cancels)', mark);
    tmux.key('Escape');
    await tmux.waitFor(/cancelled: .*cancelled by Esc/, mark);

    // The model gets the next prompt with a result for every call of the cancelled step (the
    // scripted server refuses a history without them, as the OpenAI API does).
    mark = tmux.capture().length;
    tmux.line('what happened?');
    await tmux.waitFor('Fine: the sleep was cancelled.', mark);
    const messages = chat.requests[1]?.body.messages ?? [];
    const results = messages.filter((message) => message.role === 'tool');
    expect(results.map((message) => message.tool_call_id)).toEqual(['call_1_0', 'call_1_1']);
    expect(results[0]?.content).toMatch(/^error: not completed: .*cancelled by Esc/);
    expect(results[1]?.content).toMatch(/^error: not completed: /);
    expect(messages.at(-1)).toMatchObject({ role: 'user', content: 'what happened?' });

    // A turn that never answers says so when it stops at the step limit.
    mark = tmux.capture().length;
    tmux.line('loop forever');
    await tmux.waitFor('stopped after 32 model steps without a final answer', mark);
    expect(tmux.capture().slice(mark)).toMatch(/✓ list_files: /);
    tmux.line('/exit');
    await tmux.waitFor('EXITED:0', mark);
  });

  it('Esc while the first call waits for servers runs nothing and freezes nothing', async () => {
    const gate = join(sandbox.root, 'go');
    await sandbox.writeMcp({
      late: sandbox.node(join(CLI_FIXTURES, 'gated-start.mjs'), gate, NOTES_SERVER),
    });
    startSession('--mode', 'full-access');
    await tmux.waitFor('clat>');

    let mark = tmux.capture().length;
    tmux.line('/call write_file {"path":"escaped.txt","content":"should not be written"}');
    await tmux.waitFor('waiting for MCP servers to connect… (Esc cancels)', mark);
    tmux.key('Escape');
    await tmux.waitFor(
      'cancelled: the wait for plugins to connect was cancelled: cancelled by Esc; nothing ran',
      mark,
    );
    mark = tmux.capture().length;
    tmux.line('/call write_file {"path":"interrupted.txt","content":"should not be written"}');
    await tmux.waitFor('waiting for MCP servers to connect… (Esc cancels)', mark);
    tmux.key('C-c');
    await tmux.waitFor('was cancelled: cancelled by Ctrl-C; nothing ran', mark);
    expect(existsSync(join(sandbox.project, 'escaped.txt'))).toBe(false);
    expect(existsSync(join(sandbox.project, 'interrupted.txt'))).toBe(false);

    // The server connects after all: the cancelled waits froze nothing, so its tools are there.
    await writeFile(gate, 'go\n');
    await tmux.waitFor('MCP servers: 1 configured · 0 connecting · 1 connected');
    mark = tmux.capture().length;
    tmux.line('/call mcp_late_add_note {"title":"late","body":"connected after the cancel"}');
    await tmux.waitFor(/"id":/, mark);
    tmux.line('/exit');
    await tmux.waitFor('EXITED:0', mark);
  });

  it('Ctrl-C clears a typed line, ends the session on an empty one, and still cancels after Ctrl-D', async () => {
    await sandbox.writeMcp({});
    startSession('--mode', 'full-access');
    await tmux.waitFor('MCP servers: 0 configured');

    // A half-typed line: Ctrl-C drops it and the session goes on.
    let mark = tmux.capture().length;
    tmux.type('a half-typed prompt');
    tmux.key('C-c');
    await tmux.waitFor('a half-typed prompt^C', mark);
    tmux.line('/mode');
    await tmux.waitFor(/^clat> \/mode\nmode: full-access$/m, mark);
    tmux.line('/mode bogus');
    await tmux.waitFor('/mode "bogus" is not a permission mode; use read-only', mark);

    // Ctrl-D while a call runs: the line editor closes, and Ctrl-C, now a signal to the
    // process, still cancels the call; the session then closes the project.
    mark = tmux.capture().length;
    tmux.line('/call run_command {"command":"sleep 30"}');
    await tmux.waitFor('running run_command… (Esc cancels)', mark);
    tmux.key('C-d');
    await new Promise((resolve) => setTimeout(resolve, 300));
    tmux.key('C-c');
    await tmux.waitFor(/cancelled: .*cancelled by Ctrl-C/, mark);
    await tmux.waitFor(/\nclosing the project…\nEXITED:0/, mark);
  });

  it('Ctrl-C on an empty prompt ends the session on a line of its own', async () => {
    await sandbox.writeMcp({});
    startSession();
    await tmux.waitFor('MCP servers: 0 configured');
    const mark = tmux.capture().length;
    tmux.key('C-c');
    await tmux.waitFor(/\nclosing the project…\nEXITED:0/, mark);
    expect(tmux.capture()).not.toContain('clat> closing');
  });
});
