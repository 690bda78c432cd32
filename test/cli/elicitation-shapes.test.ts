/**
 * The 2025-11-25 elicitation shapes answered on a real terminal (tmux): a 2026-07-28 SDK v2
 * server asks them through input_required, the interactive session and `clat call` render
 * them (multi-selects, titled choices, defaults), and a URL-mode request opens the browser only
 * after the person accepts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLAT_BIN, CLI_FIXTURES, REPO_ROOT, useCliSandbox } from './support.js';
import { hasTmux, TmuxSession } from './tmux.js';

const ROUNDS = join(REPO_ROOT, 'test/fixtures/bridge/rounds-server.mjs');

let tmux: TmuxSession;

const sandbox = useCliSandbox(
  async () => {
    await sandbox.writeMcp({ rounds: sandbox.node(ROUNDS) });
    tmux = new TmuxSession(`clat-shapes-${process.pid}-${Date.now()}`);
  },
  { teardown: () => tmux.kill(), settleMs: 3_000 },
);

describe.skipIf(!hasTmux())('elicitation shapes on a terminal (tmux)', () => {
  it('the session asks every shape, taking defaults on Enter', async () => {
    tmux.startClat(sandbox);
    await tmux.waitFor('MCP servers: 1 configured · 0 connecting · 1 connected');
    const mark = tmux.capture().length;
    tmux.line('/call mcp_rounds_profile');
    // Every question names the server that asks, so none can pass as CLAT's own.
    await tmux.waitFor('? mcp:rounds asks: Your profile', mark);
    await tmux.waitFor('(Ada)>', mark);
    tmux.line(''); // name: default
    await tmux.waitFor('(36)>', mark);
    tmux.line('40');
    await tmux.waitFor(/Subscribe.*\n(.*\n)*.*\(yes\)>/, mark);
    tmux.line('2'); // no
    await tmux.waitFor('3. Blue', mark);
    tmux.line(''); // color: default Green
    await tmux.waitFor(
      '[numbers separated by commas, e.g. 1,3; empty picks the default] (beta)>',
      mark,
    );
    tmux.line('1,3');
    await tmux.waitFor('3. Large', mark);
    tmux.line('large, small');
    // An optional field without a default: Enter skips it and keeps the answers given so far.
    await tmux.waitFor(/Newsletter \(optional\)\n(.*\n)*.*\] \(skip\)>/, mark);
    tmux.line('');
    await tmux.waitFor(
      /"action":"accept","content":\{"name":"Ada","age":40,"subscribed":false,"color":"g","tags":\["alpha","gamma"\],"sizes":\["s","l"\]\}/,
      mark,
    );
    tmux.line('/exit');
    await tmux.waitFor('EXITED:0', mark);
  });

  it('clat call on a terminal asks the multi-selects and titled choices too', async () => {
    await sandbox.run(['trust']);
    tmux.start([process.execPath, CLAT_BIN, 'call', 'mcp_rounds_profile'], sandbox.project, {
      CLAT_HOME: sandbox.home,
      NO_COLOR: '1',
    });
    await tmux.waitFor('(Ada)>');
    tmux.line('Lin');
    await tmux.waitFor('(36)>');
    tmux.line('');
    await tmux.waitFor(/Subscribe.*\n(.*\n)*.*\(yes\)>/);
    tmux.line('');
    await tmux.waitFor('3. Blue');
    tmux.line('red');
    await tmux.waitFor('(beta)>');
    tmux.line('9'); // not an option: asked again with a hint
    await tmux.waitFor('[pick options by number or name]');
    tmux.line('2 3');
    await tmux.waitFor('3. Large');
    tmux.line('');
    // The form's "(skip)" default is shown once in parentheses, not "((skip))".
    await tmux.waitFor('] (skip)>');
    expect(tmux.capture()).not.toContain('((skip))');
    tmux.line('');
    await tmux.waitFor(
      '{"action":"accept","content":{"name":"Lin","age":36,"subscribed":true,"color":"r","tags":["beta","gamma"]}}',
    );
    await tmux.waitFor('EXITED:0');
  });

  it('clat call: Ctrl-C at a form field cancels the call, and Ctrl-D cancels the form, sending nothing', async () => {
    await sandbox.run(['trust']);
    const env = { CLAT_HOME: sandbox.home, NO_COLOR: '1' };
    tmux.start([process.execPath, CLAT_BIN, 'call', 'mcp_rounds_profile'], sandbox.project, env);
    await tmux.waitFor('(Ada)>');
    tmux.line('Lin');
    await tmux.waitFor('(36)>');
    // Ctrl-C took the field's default and went on, and in the end sent the form as accepted.
    tmux.key('C-c');
    await tmux.waitFor('was cancelled: cancelled by Ctrl-C [CANCELLED]');
    await tmux.waitFor('EXITED:130');
    expect(tmux.capture()).not.toContain('"action":"accept"');

    tmux.kill();
    tmux.start([process.execPath, CLAT_BIN, 'call', 'mcp_rounds_profile'], sandbox.project, env);
    await tmux.waitFor('(Ada)>');
    tmux.key('C-d');
    await tmux.waitFor('{"action":"cancel"}');
    await tmux.waitFor('EXITED:0');
    expect(tmux.capture()).not.toContain('(36)>');
  });

  it('clat call shows a URL-mode request and opens the URL only after accept', async () => {
    const opened = join(sandbox.root, 'opened.txt');
    const browser = `${process.execPath} ${join(CLI_FIXTURES, 'record-url.mjs')} ${opened}`;
    await sandbox.run(['trust']);
    const url = 'https://example.com/docs?step=1';
    tmux.start(
      [process.execPath, CLAT_BIN, 'call', 'mcp_rounds_open_docs', `url=${url}`],
      sandbox.project,
      {
        CLAT_HOME: sandbox.home,
        NO_COLOR: '1',
        BROWSER: browser,
      },
    );
    await tmux.waitFor('? mcp:rounds asks: Read the docs');
    await tmux.waitFor(`URL: ${url}`);
    await tmux.waitFor('Host: example.com');
    await tmux.waitFor('2. decline');
    expect(existsSync(opened)).toBe(false);
    tmux.line('1');
    await tmux.waitFor('{"action":"accept"}');
    await tmux.waitFor('EXITED:0');
    const end = Date.now() + 10_000;
    while (!existsSync(opened) && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    expect(readFileSync(opened, 'utf8')).toBe(`${url}\n`);
    expect(tmux.capture()).not.toContain('could not open a browser');
  });

  it('clat call says so when no browser opens after an accept', async () => {
    await sandbox.run(['trust']);
    const url = 'https://example.com/docs?step=2';
    tmux.start(
      [process.execPath, CLAT_BIN, 'call', 'mcp_rounds_open_docs', `url=${url}`],
      sandbox.project,
      // An opener that fails, as xdg-open does with no browser to hand the URL to.
      { CLAT_HOME: sandbox.home, NO_COLOR: '1', BROWSER: 'false' },
    );
    await tmux.waitFor('2. decline');
    tmux.line('1');
    await tmux.waitFor('clat: could not open a browser; open the URL above yourself');
    await tmux.waitFor('{"action":"accept"}');
    const pane = await tmux.waitFor('EXITED:0');
    expect(pane).toMatch(/^\s*URL: https:\/\/example\.com\/docs\?step=2$/m);
  });

  it('clat call shows a server message that draws its own URL lines on one line of its own', async () => {
    await sandbox.run(['trust']);
    const message = 'Sign in first\n\nURL: https://bank.example/login\nHost: bank.example';
    tmux.start(
      [
        process.execPath,
        CLAT_BIN,
        'call',
        'mcp_rounds_open_docs',
        JSON.stringify({ url: 'https://example.com/x', message }),
      ],
      sandbox.project,
      { CLAT_HOME: sandbox.home, NO_COLOR: '1', BROWSER: 'false' },
    );
    await tmux.waitFor('2. decline');
    const pane = tmux.capture();
    expect(pane).toContain('Sign in first URL: https://bank.example/login Host: bank.example');
    expect(pane).not.toMatch(/^\s*URL: https:\/\/bank\.example/m);
    expect(pane).toMatch(/^\s*URL: https:\/\/example\.com\/x$/m);
    expect(pane).toMatch(/^\s*Host: example\.com$/m);
    tmux.line('2');
    await tmux.waitFor('{"action":"decline"}');
    await tmux.waitFor('EXITED:0');
  });

  it('clat call declining a URL-mode request opens nothing', async () => {
    const opened = join(sandbox.root, 'opened.txt');
    const browser = `${process.execPath} ${join(CLI_FIXTURES, 'record-url.mjs')} ${opened}`;
    await sandbox.run(['trust']);
    tmux.start(
      [process.execPath, CLAT_BIN, 'call', 'mcp_rounds_open_docs', 'url=https://example.com/x'],
      sandbox.project,
      { CLAT_HOME: sandbox.home, NO_COLOR: '1', BROWSER: browser },
    );
    await tmux.waitFor('2. decline');
    tmux.line('2');
    await tmux.waitFor('{"action":"decline"}');
    await tmux.waitFor('EXITED:0');
    await new Promise((r) => setTimeout(r, 500));
    expect(existsSync(opened)).toBe(false);
  });
});
