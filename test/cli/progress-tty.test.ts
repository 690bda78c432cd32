/**
 * Tool progress on a real terminal (tmux): `clat call` redraws ONE line in place while a server
 * reports progress and never leaves it behind once the result is printed or the call is
 * cancelled. The plain-line form for a non-TTY stderr is tested in rich-content.test.ts.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLAT_BIN, STDIO_FIXTURES, useCliSandbox } from './support.js';
import { hasTmux, TmuxSession } from './tmux.js';

let tmux: TmuxSession;

const sandbox = useCliSandbox(
  async () => {
    await sandbox.writeMcp({ rich: sandbox.node(join(STDIO_FIXTURES, 'rich-content.mjs')) });
    await sandbox.run(['trust']);
    tmux = new TmuxSession(`clat-progress-${process.pid}-${Date.now()}`);
  },
  { teardown: () => tmux.kill() },
);

/** Pane rows that show a progress report of the fixture's `steps` tool. */
function progressRows(pane: string): string[] {
  return pane.split('\n').filter((row) => row.includes('mcp_rich_steps:'));
}

describe.skipIf(!hasTmux())('tool progress on a terminal (tmux)', () => {
  it('clat call redraws one progress line in place and erases it before the result', async () => {
    tmux.start(
      [process.execPath, CLAT_BIN, 'call', 'mcp_rich_steps', '{"steps":8,"ms":300}'],
      sandbox.project,
      { CLAT_HOME: sandbox.home, NO_COLOR: '1' },
    );
    await tmux.waitFor(/mcp_rich_steps: 37% \(3\/8\)/);
    const during = tmux.capture();
    // Three reports so far, one row on screen: the later ones replaced the earlier in place.
    expect(progressRows(during)).toHaveLength(1);
    expect(progressRows(during)[0]).toMatch(/^mcp_rich_steps: 37% \(3\/8\) - step 3/);
    expect(during).not.toContain('(1/8)');

    const done = await tmux.waitFor('EXITED:0');
    expect(done).toContain('8 steps done');
    expect(progressRows(done)).toEqual([]);
  });

  it('Ctrl-C mid-progress cancels and leaves no progress line behind', async () => {
    tmux.start(
      [process.execPath, CLAT_BIN, 'call', 'mcp_rich_steps', '{"steps":40,"ms":250}'],
      sandbox.project,
      { CLAT_HOME: sandbox.home, NO_COLOR: '1' },
    );
    await tmux.waitFor(/mcp_rich_steps: \d+% \(2\/40\)/);
    tmux.key('C-c');
    const after = await tmux.waitFor('EXITED:130');
    expect(after).toContain('cancelled');
    expect(progressRows(after)).toEqual([]);
  });
});
