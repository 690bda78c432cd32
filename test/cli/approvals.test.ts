/**
 * Approvals people keep, through the real binary: "s" (always this tool this session) and "p"
 * (always this tool in this project) in the interactive session under tmux, the saved answer
 * bound to the server's configuration digest, applied by `clat call` without a terminal too, not
 * applied in read-only mode, and `clat approvals list|reset`.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJsonOutput, shownCommandArgs, useCliSandbox } from './support.js';
import { hasTmux, TmuxSession } from './tmux.js';

let tmux: TmuxSession | undefined;

const sandbox = useCliSandbox(
  async () => {
    await sandbox.writeMcp({ notes: sandbox.notesServer() });
  },
  {
    teardown: () => {
      tmux?.kill();
      tmux = undefined;
    },
  },
);

/** The question of an approval that may be remembered; it names the tool. */
const PROMPT = '? [y/N] (s = always this session, p = always in this project)';

describe.skipIf(!hasTmux())('approvals in the interactive session (tmux)', () => {
  it('keeps "s" for the session and "p" across sessions in this project', async () => {
    const session = new TmuxSession(`clat-approvals-${process.pid}-${Date.now()}`);
    tmux = session;
    session.startClat(sandbox);
    await session.waitFor('MCP servers: 1 configured · 0 connecting · 1 connected');

    // Destructive in project-write: asks; "s" allows it for the rest of this session.
    let mark = session.capture().length;
    session.line('/call mcp_notes_delete_note {"id":"a"}');
    await session.waitFor(PROMPT, mark);
    session.line('s');
    await session.waitFor('"deleted": false', mark);
    mark = session.capture().length;
    session.line('/call mcp_notes_delete_note {"id":"b"}');
    await session.waitFor('"deleted": false', mark);
    expect(session.capture().slice(mark)).not.toContain('[y/N]');

    // Another tool still asks; "p" saves it for this project.
    mark = session.capture().length;
    session.line('/call run_command {"command":"echo kept"}');
    await session.waitFor(PROMPT, mark);
    session.line('p');
    await session.waitFor('kept', mark);
    session.line('/exit');
    await session.waitFor('EXITED:0', mark);
    session.kill();

    // A new session: the saved tool runs without a prompt, the session-only one asks again.
    const again = new TmuxSession(`clat-approvals2-${process.pid}-${Date.now()}`);
    tmux = again;
    again.startClat(sandbox);
    await again.waitFor('1 connected');
    mark = again.capture().length;
    again.line('/call run_command {"command":"echo saved-run"}');
    await again.waitFor('Allowed run_command (execute): saved for this project', mark);
    await again.waitFor('saved-run', mark);
    mark = again.capture().length;
    again.line('/call mcp_notes_delete_note {"id":"c"}');
    await again.waitFor(PROMPT, mark);
    again.line('n');
    await again.waitFor('was not approved: denied by the user', mark);

    // Read-only asks before every call that is not a read: the saved answer does not apply,
    // and nothing is offered to remember.
    again.line('/mode read-only');
    mark = again.capture().length;
    again.line('/call run_command {"command":"echo read-only-run"}');
    await again.waitFor('Allow run_command? [y/N]', mark);
    expect(again.capture().slice(mark)).not.toContain('saved for this project');
    expect(again.capture().slice(mark)).not.toContain('s = always this session');
    again.line('n');
    await again.waitFor('was not approved: denied by the user', mark);
    expect(again.capture().slice(mark)).not.toContain('read-only-run\n');
    again.line('/exit');
    await again.waitFor('EXITED:0', mark);

    expect((await stat(join(sandbox.home, 'approvals.json'))).mode & 0o777).toBe(0o600);
  });
});

describe.skipIf(!hasTmux())('clat approvals reset and open sessions (tmux)', () => {
  it('reaches a session that answered "p" and one that used the saved answer, at their next call', async () => {
    const sessions: TmuxSession[] = [];
    const open = async (label: string): Promise<TmuxSession> => {
      const session = new TmuxSession(`clat-reset-${label}-${process.pid}-${Date.now()}`);
      sessions.push(session);
      session.startClat(sandbox);
      await session.waitFor('1 connected');
      return session;
    };
    try {
      const answered = await open('p');
      let mark = answered.capture().length;
      answered.line('/call run_command {"command":"echo first-run"}');
      await answered.waitFor(PROMPT, mark);
      answered.line('p');
      await answered.waitFor('first-run', mark);

      const used = await open('used');
      const usedMark = used.capture().length;
      used.line('/call run_command {"command":"echo saved-run"}');
      await used.waitFor('Allowed run_command (execute): saved for this project', usedMark);
      await used.waitFor('saved-run', usedMark);

      const reset = await sandbox.run(['approvals', 'reset', 'run_command']);
      expect(reset.stdout).toContain('Forgot 1 saved approval of "run_command"');

      for (const session of [answered, used]) {
        mark = session.capture().length;
        session.line('/call run_command {"command":"echo after-reset"}');
        await session.waitFor(PROMPT, mark);
        session.line('n');
        await session.waitFor('was not approved: denied by the user', mark);
        expect(session.capture().slice(mark)).not.toContain('after-reset\n');
        session.line('/exit');
        await session.waitFor('EXITED:0', mark);
      }
    } finally {
      for (const session of sessions) session.kill();
    }
  });
});

describe('saved approvals', () => {
  it('ask again when the server configuration changes; list and reset them', async () => {
    // Save "p" for the notes server's destructive tool through a piped session.
    const saved = await sandbox.run(['chat', '--trust'], {
      input: '/call mcp_notes_delete_note {"id":"a"}\np\n/call mcp_notes_delete_note {"id":"b"}\n',
    });
    expect(saved.code).toBe(0);
    expect(saved.stdout.match(/Allow \S+\? \[y\/N\]/g)).toHaveLength(1);

    const listed = parseJsonOutput<{
      approvals: { tool: string; effect: string; digest: string }[];
    }>(await sandbox.run(['approvals', 'list', '--json']));
    expect(listed.approvals).toMatchObject([
      { tool: 'mcp_notes_delete_note', effect: 'destructive' },
    ]);
    expect(listed.approvals[0]?.digest).toMatch(/^sha256:[0-9a-f]{64}$/);

    // Piped sessions without a question still run saved tools without asking; one started from
    // elsewhere (-C) names the reset that forgets the answer with that project.
    const elsewhere = sandbox.root;
    const quiet = await sandbox.run(['chat', '--trust', '-C', sandbox.project], {
      cwd: elsewhere,
      input: '/call mcp_notes_delete_note {"id":"c"}\n',
    });
    const forget = `clat approvals reset mcp_notes_delete_note -C ${sandbox.project}`;
    expect(quiet.stdout).toContain(`saved for this project; "${forget}" forgets it`);
    expect(quiet.stdout).not.toContain('[y/N]');

    // Without a terminal at all (clat call headless) the saved answer allows the tool too;
    // another tool is denied, and the hint says how to save an answer for it.
    const headless = await sandbox.run(['call', 'mcp_notes_delete_note', '{"id":"h"}', '--trust']);
    expect(headless.code).toBe(0);
    expect(headless.stderr).toContain(
      'Allowed mcp_notes_delete_note (destructive): saved for this project',
    );
    const unsaved = await sandbox.run([
      'call',
      'run_command',
      '{"command":"echo unsaved"}',
      '--trust',
    ]);
    expect(unsaved.code).toBe(3);
    expect(unsaved.stdout).toBe('');
    expect(unsaved.stderr).toContain('where "p" allows it in this project from then on');
    // Read-only applies nothing remembered, headless as at a prompt.
    const readOnly = await sandbox.run([
      'call',
      'mcp_notes_delete_note',
      '{"id":"r"}',
      '--mode',
      'read-only',
      '--trust',
    ]);
    expect(readOnly.code).toBe(3);
    expect(readOnly.stderr).not.toContain('saved for this project');
    expect(readOnly.stderr).not.toContain('"p" allows it');

    // Another command line for the same server name is another server: it asks again.
    const changed = sandbox.notesServer() as { args: string[] };
    await sandbox.writeMcp({ notes: { ...changed, args: [...changed.args, '--changed'] } });
    const asks = await sandbox.run(['chat', '--trust'], {
      input: '/call mcp_notes_delete_note {"id":"d"}\nn\n',
    });
    expect(asks.stdout).toContain('Allow mcp_notes_delete_note? [y/N]');

    const text = await sandbox.run(['approvals']);
    expect(text.stdout).toMatch(/mcp_notes_delete_note {2}destructive/);
    // The reset that line named works as shown, from where that session started.
    const reset = await sandbox.run(shownCommandArgs(forget), { cwd: elsewhere });
    expect(reset.stdout).toContain('Forgot 1 saved approval of "mcp_notes_delete_note"');
    const empty = await sandbox.run(['approvals', 'list']);
    expect(empty.stdout).toContain('No saved approvals for');
    const bad = await sandbox.run(['approvals', 'wipe']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown subcommand "wipe"; use list or reset');
  });
});

describe('approvals.json written by others', () => {
  const digest = `sha256:${'b'.repeat(64)}`;
  const at = '2026-12-01T10:00:00.000Z';
  /** A newer CLAT's file: root fields, extra fields and an entry of a newer shape. */
  function foreign(project: string) {
    return {
      version: 1,
      defaults: { ask: 'always' },
      projects: {
        [project]: {
          run_command: { effect: 'execute', digest, at, expiresAt: '2027-01-01T00:00:00Z' },
          write_file: { effect: 'write', digest, at, rule: { path: 'src/**' } },
          mcp_git_push: { effect: 'write', digestV2: 'blake3:abc', at },
        },
        '/elsewhere': { search: { effect: 'read', digest, at, scope: 'repo' } },
      },
    };
  }

  it('names no reset -C for an unreadable entry of a project that no longer exists', async () => {
    const file = join(sandbox.home, 'approvals.json');
    const gone = join(sandbox.root, 'deleted-project');
    const at = '2026-01-01T00:00:00.000Z';
    await writeFile(
      file,
      JSON.stringify({ version: 1, projects: { [gone]: { search: { digestV2: 'x', at } } } }),
    );
    const listed = await sandbox.run(['approvals', 'list', '--all']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toContain(
      `projects[${JSON.stringify(gone)}]["search"] is not an approval this CLAT can read (it lacks "effect", "digest" or "at" strings), so it is kept but not applied; its project no longer exists, so remove it from the file by hand`,
    );
  });

  it('reset of one tool keeps every other field and entry; list names what it cannot read', async () => {
    const file = join(sandbox.home, 'approvals.json');
    const before = foreign(sandbox.project);
    await writeFile(file, `${JSON.stringify(before, null, '\t')}\n`);

    const listed = await sandbox.run(['approvals', 'list', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(
      parseJsonOutput<{ approvals: { tool: string }[] }>(listed).approvals.map((a) => a.tool),
    ).toEqual(['run_command', 'write_file']);
    expect(listed.stderr).toContain(
      `clat: ${file}: projects[${JSON.stringify(sandbox.project)}]["mcp_git_push"] is not an approval this CLAT can read`,
    );
    // The command that note names removes the entry it cannot read.
    const command = /"(clat approvals reset [^"]+)" removes it/.exec(listed.stderr)?.[1] ?? '';
    expect(command).toContain('mcp_git_push');

    const reset = await sandbox.run(['approvals', 'reset', 'run_command']);
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toContain('Forgot 1 saved approval of "run_command"');
    const removedRun = structuredClone(before);
    delete (removedRun.projects[sandbox.project] as Record<string, unknown>).run_command;
    expect(await readFile(file, 'utf8')).toBe(`${JSON.stringify(removedRun, null, '\t')}\n`);

    const forgot = await sandbox.run(shownCommandArgs(command));
    expect(forgot.code, forgot.stderr).toBe(0);
    const removedPush = structuredClone(removedRun);
    delete (removedPush.projects[sandbox.project] as Record<string, unknown>).mcp_git_push;
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(removedPush);
  });

  it('reset --json is a usage error that changes nothing', async () => {
    const file = join(sandbox.home, 'approvals.json');
    const text = `${JSON.stringify(foreign(sandbox.project), null, 2)}\n`;
    await writeFile(file, text);
    const reset = await sandbox.run(['approvals', 'reset', '--json']);
    expect(reset.code).toBe(2);
    expect(reset.stdout).toBe('');
    expect(reset.stderr).toContain('clat approvals reset: --json only applies to list');
    expect(await readFile(file, 'utf8')).toBe(text);
  });

  it('a file of a newer format is said to come from a newer CLAT and is left as it is', async () => {
    const file = join(sandbox.home, 'approvals.json');
    const text = JSON.stringify({ version: 2, projects: {} });
    await writeFile(file, text);
    for (const args of [['approvals'], ['approvals', 'reset', '--all']]) {
      const run = await sandbox.run(args);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`${file}: "version": 2 was written by a newer CLAT`);
      expect(run.stderr).not.toContain('delete it');
    }
    expect(await readFile(file, 'utf8')).toBe(text);
  });
});
