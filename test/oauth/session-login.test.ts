/**
 * `/login` in the interactive session, on a real terminal (tmux): a server that needs an OAuth
 * login is named at start with the session's own command, `/mcp` shows that command (not a shell
 * one), and `/login <name>` logs in through $BROWSER with a name that holds a space; before the
 * first run the server mounts again and its tools answer in the same session; `--scopes` asks
 * for the scopes given, as `clat mcp login` takes it. The real
 * OpenID provider and protected MCP server run on 127.0.0.1; the token never reaches the pane.
 */
import { describe, expect, it } from 'vitest';
import { CLAT_BIN, parseJsonOutput, useCliSandbox } from '../cli/support.js';
import { hasTmux, TmuxSession } from '../cli/tmux.js';
import { BROWSER, type OAuthWorld, readTokenFile, startOAuthWorld } from './oauth-world.js';

const NAME = 'team docs';

let world: OAuthWorld | undefined;
let tmux: TmuxSession;

const sandbox = useCliSandbox(
  async () => {
    world = await startOAuthWorld(sandbox);
    await sandbox.writeMcp({ mcpServers: { [NAME]: { url: world.mcp.url } } });
    tmux = new TmuxSession(`clat-session-login-${process.pid}-${Date.now()}`);
  },
  {
    teardown: async () => {
      tmux.kill();
      await world?.close();
    },
    settleMs: 3_000,
  },
);

describe.skipIf(!hasTmux())('/login in the session (tmux)', () => {
  it('names /login for a server that needs one, logs in to a name with a space and mounts it', async () => {
    tmux.start([process.execPath, CLAT_BIN, '--trust'], sandbox.project, {
      CLAT_HOME: sandbox.home,
      NO_COLOR: '1',
      BROWSER,
    });
    await tmux.waitFor(`${NAME} needs login: type /login ${NAME} to log in now`);

    let mark = tmux.capture().length;
    tmux.line('/mcp');
    await tmux.waitFor(`to log in, run: /login ${NAME}`, mark);

    // Before the first run the server mounts again at once: its tools join this session.
    mark = tmux.capture().length;
    tmux.line(`/login ${NAME}`);
    await tmux.waitFor(/Logged in to team docs at http:\/\/127\.0\.0\.1:\d+/, mark);
    await tmux.waitFor(`${NAME} connected: 2 tools`, mark);
    mark = tmux.capture().length;
    tmux.line('/call mcp_team_docs_whoami');
    await tmux.waitFor('hello, authorized caller', mark);

    // `--scopes` as `clat mcp login` takes it: an empty value is refused, naming the flag.
    mark = tmux.capture().length;
    tmux.line(`/login ${NAME} --scopes`);
    await tmux.waitFor('--scopes needs at least one OAuth scope, comma-separated', mark);
    // After the first run the registries are frozen: a login asks for a restart instead. With
    // --scopes it asks for exactly those, here more than the server advertises (mcp:read).
    mark = tmux.capture().length;
    tmux.line(`/login ${NAME} --scopes mcp:read, mcp:admin`);
    await tmux.waitFor(/with scope "[^"]*mcp:admin[^"]*"/, mark);
    await tmux.waitFor(
      'restart clat to mount its tools (the tool list froze at the first run)',
      mark,
    );
    tmux.line('/exit');
    await tmux.waitFor('EXITED:0', mark);

    const token = (await readTokenFile(sandbox.home)).record.tokens.accessToken;
    expect(tmux.capture()).not.toContain(token);
    const status = parseJsonOutput<{ servers: { name: string; state: string }[] }>(
      await sandbox.run(['mcp', '--json', '--trust']),
    );
    expect(status.servers).toMatchObject([{ name: NAME, state: 'connected' }]);
    // The token the session's --scopes login got carries mcp:admin: the admin tool answers.
    const admin = await sandbox.run(['call', '--trust', 'mcp_team_docs_admin', '{}']);
    expect(admin.code, admin.stderr).toBe(0);
    expect(admin.stdout).toContain('admin done');
  });
});
