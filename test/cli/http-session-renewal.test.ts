/**
 * A legacy HTTP server that forgets its session (it restarted, or expired the session) through the
 * real `clat` binary: the next request meets a 404 (the spec) or a 400 naming the session (SDK 1.x
 * servers such as server-everything), CLAT starts a new session with `initialize` and sends the
 * request again, and the user sees only the answer. Before, the server stayed failed until CLAT
 * restarted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  type HttpFixture,
  startServerEverything,
  startSessionServer,
  stopAllHttpFixtures,
} from '../fixtures/http-servers/spawn.js';
import { type FakeChatServer, startFakeChatServer } from './chat-server.js';
import { useCliSandbox } from './support.js';
import { hasTmux, TmuxSession } from './tmux.js';

let chat: FakeChatServer | undefined;

const sandbox = useCliSandbox(undefined, {
  teardown: async () => {
    await chat?.close();
    chat = undefined;
    await stopAllHttpFixtures();
  },
});

/** The REQ lines of session-server.mjs whose JSON-RPC method is `method`. */
function requests(server: HttpFixture, method: string): number {
  return server
    .stderr()
    .split('\n')
    .filter((line) => line.includes(`"method":"${method}"`)).length;
}

describe('a legacy HTTP server that forgets its session', () => {
  it('clat exec: the call after the server forgot the session runs in a new session (404)', async () => {
    const server = await startSessionServer('forgetful');
    await sandbox.run(['trust']);
    await sandbox.writeMcp({ mcpServers: { remote: { url: `${server.origin}/mcp` } } });
    chat = await startFakeChatServer([
      { toolCalls: [{ name: 'mcp_remote_forget_session', arguments: {} }] },
      { toolCalls: [{ name: 'mcp_remote_echo', arguments: { text: 'after the restart' } }] },
      { text: 'Both calls answered.' },
    ]);
    await sandbox.writeConfig({
      provider: { kind: 'openai-compatible', vendor: 'local', baseUrl: chat.url, model: 'm' },
    });
    const result = await sandbox.run(['exec', 'call both tools']);
    expect(result.stderr).not.toMatch(/✗ mcp_remote_echo/);
    expect(result.stdout).toBe('Both calls answered.\n');
    expect(result.code).toBe(0);
    await server.waitFor('EVENT session forgotten');
    const answer = chat.requests[2]?.body.messages.filter((m) => m.role === 'tool').at(-1);
    expect(answer?.content).toContain('echo: after the restart');
    // One initialize at connect, one for the new session; the echo went out twice (404, then ok).
    expect(requests(server, 'initialize')).toBe(2);
    expect(requests(server, 'tools/call')).toBe(3);
  });

  describe.skipIf(!hasTmux())('in a session (tmux)', () => {
    let tmux: TmuxSession | undefined;
    afterEach(() => {
      tmux?.kill();
      tmux = undefined;
    });

    it('server-everything restarted on its port: /call works again, /mcp shows it connected with a new GET stream (400)', async () => {
      let everything = await startServerEverything();
      const port = everything.port;
      await sandbox.writeMcp({
        mcpServers: { everything: { url: `http://127.0.0.1:${port}/mcp` } },
      });
      tmux = new TmuxSession(`clat-renew-${process.pid}-${Date.now()}`);
      tmux.startClat(sandbox);
      await tmux.waitFor('MCP servers: 1 configured · 0 connecting · 1 connected', 0, 30_000);

      let mark = tmux.capture().length;
      tmux.line('/call mcp_everything_echo {"message":"before the restart"}');
      await tmux.waitFor('Echo: before the restart', mark);

      // A new process on the same port knows none of the old sessions.
      await everything.stop();
      everything = await startServerEverything(port);
      mark = tmux.capture().length;
      tmux.line('/call mcp_everything_echo {"message":"after the restart"}');
      await tmux.waitFor('Echo: after the restart', mark, 20_000);
      expect(tmux.capture().slice(mark)).not.toMatch(/no longer knows|failed/);

      mark = tmux.capture().length;
      tmux.line('/mcp');
      await tmux.waitFor(/everything\s+http\s+connected .*GET stream open\b/, mark);

      tmux.line('/exit');
      await tmux.waitFor('EXITED:0', mark);
    });
  });
});
