/** The session command with piped (non-TTY) input: lines run in order, nothing is dropped. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectInOrder, STDIO_FIXTURES, useCliSandbox } from './support.js';

const sandbox = useCliSandbox(async () => {
  await sandbox.writeMcp({ notes: sandbox.notesServer() });
});

describe('clat chat with piped input', () => {
  it('runs every line in order; approvals and questions take the next line', async () => {
    const script = [
      '/call mcp_notes_add_note {"title":"piped","body":"one"}',
      '/call mcp_notes_list_notes',
      '/call mcp_notes_delete_note {"id":"x"}',
      'n',
      '/mode read-only',
      '/call mcp_notes_add_note {"title":"blocked","body":"two"}',
      'n',
      '/call ask_user {"question":"Colour?","options":[{"label":"red"},{"label":"blue"}]}',
      '2',
      '/mcp',
      '/nonsense',
      '',
    ].join('\n');
    const result = await sandbox.run(['chat', '--trust'], { input: script });
    expect(result.code).toBe(0);
    const out = result.stdout;
    expectInOrder(out, [
      'running mcp_notes_add_note',
      '"title": "piped"',
      'Allow mcp_notes_delete_note? [y/N] (s = always this session, p = always in this project) n',
      'mcp_notes_delete_note was not approved: denied by the user',
      'mode: read-only',
      'mcp_notes_add_note was not approved: denied by the user',
      '"answer":"blue"',
      'notes  stdio  connected',
      'unknown command /nonsense',
      'closing the project',
    ]);
    const notes = await readFile(join(sandbox.root, 'notes', 'notes.json'), 'utf8');
    expect(notes).toContain('piped');
    expect(notes).not.toContain('blocked');
  });

  it('takes key=value arguments in /call as clat call does, and names the closest of a typo', async () => {
    const script = [
      '/call mcp_notes_add_note title="two words" body=b',
      '/call mcp_notes_list_notes',
      '/call mcp_notes_add_notes title=x body=y',
      '/call mcp_notes_add_note titel=x body=y',
      '/call mcp_notes_add_note title="open',
      '/tols',
      '/call add_note title=x body=y',
      '/call mcp__notes__add_note title=x body=y',
      '/model',
      '',
    ].join('\n');
    const result = await sandbox.run(['chat', '--trust', '--mode', 'full-access'], {
      input: script,
    });
    expect(result.code, result.stderr).toBe(0);
    const out = result.stdout;
    expectInOrder(out, [
      '"title": "two words"',
      'tool "mcp_notes_add_notes" is not registered (did you mean "mcp_notes_add_note"?); /tools lists them',
      'error: /call: the tool has no argument "titel" (did you mean "title"?)',
      '/call: unterminated " quote in "title=\\"open"',
      'unknown command /tols (did you mean "/tools"?)',
      // Gemini CLI's bare tool name and Claude Code's mcp__server__tool name CLAT's tool.
      'tool "add_note" is not registered (did you mean "mcp_notes_add_note"?)',
      'tool "mcp__notes__add_note" is not registered (did you mean "mcp_notes_add_note"? CLAT names a server\'s tools mcp_<server>_<tool>)',
      // Other clients pick the model with /model: not "did you mean /mode".
      `/model: the model is the provider's "model" in ${join(sandbox.home, 'config.json')} (restart clat after changing it); /mode is the permission mode`,
    ]);
    const notes = await readFile(join(sandbox.root, 'notes', 'notes.json'), 'utf8');
    expect(notes).toContain('two words');
    expect(notes).not.toContain('"x"');
  });

  it('shows a flood of progress as a few lines and a long result folded, naming what prints it all', async () => {
    await sandbox.writeMcp({
      notes: sandbox.notesServer(),
      rich: sandbox.node(join(STDIO_FIXTURES, 'rich-content.mjs')),
    });
    const script = [
      '/call mcp_rich_steps {"steps":300,"ms":1}',
      '/call run_command {"command":"seq 1 3000"}',
      '',
    ].join('\n');
    const result = await sandbox.run(['chat', '--trust', '--mode', 'full-access'], {
      input: script,
    });
    expect(result.code, result.stderr).toBe(0);
    const out = result.stdout;
    // 300 progress notifications: the first, at most one a second after it (however slow a
    // loaded machine makes the 300 steps, far fewer than 300), and the one that completes.
    const lines = out.split('\n').filter((line) => line.startsWith('  … mcp_rich_steps: '));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.length).toBeLessThan(30);
    expect(lines[0]).toContain('0% (1/300) - step 1\\x1b[31m red');
    expect(lines.at(-1)).toContain('100% (300/300) - step 300');
    expectInOrder(out, [
      '300 steps done',
      '"stdout":"1\\n2\\n3\\n',
      'more characters not shown; "clat call run_command --trust" with the same arguments prints the whole result',
    ]);
    expect(out).not.toContain('\\n2999\\n');
  });

  it('stops at /exit', async () => {
    const result = await sandbox.run(['chat', '--trust'], {
      input: '/exit\n/call mcp_notes_add_note {"title":"never","body":"x"}\n',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('running mcp_notes_add_note');
  });

  it('approves from the script and denies when the script ends before the answer', async () => {
    const result = await sandbox.run(['chat', '--trust'], {
      input:
        '/call mcp_notes_add_note {"title":"a","body":"b"}\n/call mcp_notes_delete_note {"id":"x"}\ny\n/call mcp_notes_delete_note {"id":"y"}\n',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('"deleted": false');
    expect(result.stdout).toContain('mcp_notes_delete_note was not approved: cancelled');
  });

  it('restarts a server that crashed on the next call of its tools, and /mcp says so', async () => {
    await sandbox.writeMcp({
      crashy: sandbox.node(join(STDIO_FIXTURES, 'crash-mid-call.mjs')),
    });
    const script = [
      '/call mcp_crashy_echo {"text":"before"}',
      '/call mcp_crashy_crash',
      '/mcp',
      '/call mcp_crashy_echo {"text":"after"}',
      '/mcp',
      '',
    ].join('\n');
    const result = await sandbox.run(['chat', '--trust', '--mode', 'full-access'], {
      input: script,
    });
    expect(result.code, result.stderr).toBe(0);
    const out = result.stdout;
    expectInOrder(out, [
      '\nbefore\n',
      // The call in flight fails with the exit; it is not retried.
      'error: MCP server "crashy" closed the connection: exited with code 139',
      'crashy  stdio  failed',
      'the next call of one of its tools starts it again',
      // The next call starts it again and is answered.
      '\nafter\n',
      'crashy  stdio  connected',
      '; CLAT restarted it for the next call (restart 1 of 3 this session)',
      'closing the project',
    ]);
  });
});
