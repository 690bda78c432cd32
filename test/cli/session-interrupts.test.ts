/**
 * Esc, Ctrl-C and Ctrl-D in the interactive session of the real `clat` binary under tmux, at
 * the moments a person presses them: during a model turn's tool call (the conversation must go
 * on), while the first call waits for servers to connect (nothing may run, nothing may freeze),
 * at the prompt with a half-typed line, and after Ctrl-D while a call still runs.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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

/** The pid of the `clat` running with CLAT home `home` (from /proc: its argv names no home). */
function clatPid(home: string): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // `node <clat.js> …`, not a shell that names it.
      const [program, script] = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      const environ = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      if (
        program === process.execPath &&
        script === CLAT_BIN &&
        environ.includes(`CLAT_HOME=${home}`)
      ) {
        return Number(entry);
      }
    } catch {
      // Gone meanwhile, or another user's.
    }
  }
  return undefined;
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

  it('Ctrl-D at a question cancels only the question; a line typed ahead during a call keeps its order', async () => {
    await sandbox.writeMcp({});
    startSession();
    await tmux.waitFor('MCP servers: 0 configured');

    // Ctrl-D at the approval: the call is not approved, and the session (its conversation) goes on.
    let mark = tmux.capture().length;
    tmux.line('/call run_command {"command":"true"}');
    await tmux.waitFor('Allow run_command? [y/N]', mark);
    tmux.key('C-d');
    await tmux.waitFor('run_command was not approved: cancelled', mark);
    tmux.line('/mode full-access');
    await tmux.waitFor(/^mode: full-access$/m, mark);

    // Typed while a call runs, then cleared with Ctrl-U: the cursor stayed at the end of what
    // was typed, so the next line is read as typed (it used to be inserted before it).
    mark = tmux.capture().length;
    tmux.line('/call run_command {"command":"sleep 2; echo slept"}');
    await tmux.waitFor('running run_command… (Esc cancels)', mark);
    tmux.type('ab');
    await tmux.waitFor('"stdout":"slept', mark);
    await new Promise((resolve) => setTimeout(resolve, 300));
    tmux.key('C-u');
    tmux.line('/mode');
    await tmux.waitFor(/^clat> \/mode\nmode: full-access$/m, mark);
    expect(tmux.capture().slice(mark)).not.toContain('unknown command');
    tmux.line('/exit');
    await tmux.waitFor('EXITED:0', mark);
  });

  // Finds the process in /proc.
  it.runIf(process.platform === 'linux')(
    'SIGTERM ends the session with the terminal as it was: echo and line editing on',
    async () => {
      await sandbox.writeMcp({});
      // The shell around clat prints the terminal's settings once it has ended.
      tmux.start(
        ['sh', '-c', '"$0" "$1" --trust; code=$?; stty -a; exit $code', process.execPath, CLAT_BIN],
        sandbox.project,
        { CLAT_HOME: sandbox.home, NO_COLOR: '1' },
      );
      await tmux.waitFor('MCP servers: 0 configured');
      // With a call running (its process group swept before the signal ends clat).
      tmux.line('/mode full-access');
      const mark = tmux.capture().length;
      tmux.line('/call run_command {"command":"sleep 30"}');
      await tmux.waitFor('running run_command… (Esc cancels)', mark);
      const pid = clatPid(sandbox.home);
      expect(pid).toBeDefined();
      process.kill(pid as number, 'SIGTERM');
      await tmux.waitFor('EXITED:143', mark);
      const settings = tmux.capture().slice(mark);
      expect(settings).toMatch(/\secho\s/);
      expect(settings).not.toMatch(/\s-(echo|icanon)\s/);
    },
  );

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
