/**
 * A legacy server whose tool list changes (notifications/tools/list_changed), through the real
 * `clat` binary in a tmux session: a tool the server loads after initialize is registered before
 * the first call freezes the registries; a change after the freeze leaves the list as it was and
 * `/mcp` says a restart picks the new list up.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { STDIO_FIXTURES, useCliSandbox } from './support.js';
import { hasTmux, TmuxSession } from './tmux.js';

const sandbox = useCliSandbox();

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe.skipIf(!hasTmux())('tools/list_changed in a session (tmux)', () => {
  let tmux: TmuxSession | undefined;
  afterEach(() => {
    tmux?.kill();
    tmux = undefined;
  });

  it('registers a tool loaded after initialize, and reports a change after the freeze in /mcp', async () => {
    const marker = join(sandbox.root, 'late-announced');
    await sandbox.writeMcp({
      dyn: {
        ...sandbox.node(join(STDIO_FIXTURES, 'dynamic-tools.mjs')),
        env: { FIXTURE_MARKER: marker },
      },
    });
    tmux = new TmuxSession(`clat-listchanged-${process.pid}-${Date.now()}`);
    tmux.startClat(sandbox);
    await tmux.waitFor('MCP servers: 1 configured · 0 connecting · 1 connected');
    await until(() => existsSync(marker), 'the server to announce its late tool');

    let mark = tmux.capture().length;
    tmux.line('/mcp');
    await tmux.waitFor(/dyn\s+stdio\s+connected .*2 tools/, mark);
    mark = tmux.capture().length;
    tmux.line('/tools');
    await tmux.waitFor('mcp_dyn_late', mark);

    // The first call freezes the registries; the tool it calls adds another one.
    mark = tmux.capture().length;
    tmux.line('/call mcp_dyn_load_more {}');
    await tmux.waitFor('loaded extra_1', mark);
    const warning =
      'the tool list of "dyn" changed (1 added) after the registries froze; restart CLAT to use the new list';
    mark = tmux.capture().length;
    tmux.line('/mcp');
    await tmux.waitFor(/dyn\s+stdio\s+connected .*2 tools/, mark);
    // The re-list runs once the server's announcement arrived; /mcp again until it shows.
    const end = Date.now() + 10_000;
    while (!tmux.capture().slice(mark).includes(warning)) {
      if (Date.now() > end)
        throw new Error(`no list-change warning in:\n${tmux.capture().slice(mark)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      mark = tmux.capture().length;
      tmux.line('/mcp');
      await tmux.waitFor(/dyn\s+stdio\s+connected/, mark);
    }
    mark = tmux.capture().length;
    tmux.line('/tools');
    await tmux.waitFor('mcp_dyn_late', mark);
    expect(tmux.capture().slice(mark)).not.toContain('mcp_dyn_extra_1');

    tmux.line('/exit');
    await tmux.waitFor('EXITED:0', mark);
  });
});
