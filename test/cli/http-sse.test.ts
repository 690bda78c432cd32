/**
 * Servers that speak only the HTTP+SSE transport of 2024-11-05, through the real `clat` binary,
 * against server-everything in its `sse` mode (GET /sse names `/message?sessionId=…`). A plain
 * `--url` entry tries Streamable HTTP, is refused with a 404 and falls back to HTTP+SSE at the same
 * URL; `--transport sse` goes there at once. Before, both failed ("failed both handshakes"), and
 * `clat mcp import` skipped such entries.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  type HttpFixture,
  startServerEverything,
  stopAllHttpFixtures,
} from '../fixtures/http-servers/spawn.js';
import { parseJsonOutput, useCliSandbox } from './support.js';
import { hasTmux, TmuxSession } from './tmux.js';

const sandbox = useCliSandbox(undefined, {
  teardown: async () => {
    await stopAllHttpFixtures();
  },
});

interface StatusJson {
  servers: {
    name: string;
    transport: string;
    state: string;
    era: string;
    tools: number;
    getStream?: string;
    failure?: string;
  }[];
}

/** Streams server-everything opened: one per HTTP+SSE session. */
function sessions(server: HttpFixture): number {
  return server
    .stderr()
    .split('\n')
    .filter((line) => line.startsWith('Client Connected')).length;
}

describe('HTTP+SSE servers (2024-11-05)', () => {
  it('a --url entry falls back to HTTP+SSE: status, a call with progress, and the next start', async () => {
    const everything = await startServerEverything(0, 'sse');
    const url = `${everything.origin}/sse`;
    const added = await sandbox.run(['mcp', 'add', 'everything', '--url', url]);
    expect(added.stdout).toContain('Added http server "everything"');
    await sandbox.run(['trust']);

    const status = await sandbox.run(['mcp', '--json']);
    expect(status.code).toBe(0);
    const [server] = parseJsonOutput<StatusJson>(status).servers;
    expect(server).toMatchObject({
      name: 'everything',
      transport: 'sse',
      state: 'connected',
      era: 'legacy',
      tools: 17,
      getStream: 'open',
    });
    expect(sessions(everything)).toBe(1);

    const text = await sandbox.run(['mcp']);
    expect(text.stdout).toMatch(
      /everything\s+sse\s+connected\s+2025-11-25 \(legacy\)\s+17 tools, 4 prompts, GET stream open/,
    );

    const echo = await sandbox.run([
      'call',
      'mcp_everything_echo',
      'message=over the old transport',
    ]);
    expect(echo.stdout).toBe('Echo: over the old transport\n');
    expect(echo.code).toBe(0);

    const long = await sandbox.run([
      'call',
      '--mode',
      'full-access',
      'mcp_everything_trigger_long_running_operation',
      'duration=1',
      'steps=2',
    ]);
    expect(long.stdout).toContain(
      'Long running operation completed. Duration: 1 seconds, Steps: 2.',
    );
    expect(long.stderr).toContain('100% (2/2)');
    // Every start was one stream; the remembered era skips the modern probe, not the fallback.
    expect(sessions(everything)).toBe(4);
  });

  it('--transport sse writes "type": "sse"; list, get and status say sse; a bad value is refused', async () => {
    const everything = await startServerEverything(0, 'sse');
    const url = `${everything.origin}/sse`;
    const added = await sandbox.run(['mcp', 'add', 'old', '--url', url, '--transport', 'sse']);
    expect(added.stdout).toContain('Added HTTP+SSE server "old"');
    expect(await sandbox.readMcp()).toEqual({ mcpServers: { old: { type: 'sse', url } } });

    const list = await sandbox.run(['mcp', 'list']);
    expect(list.stdout).toContain(`  old  sse  ${url}\n`);
    const get = await sandbox.run(['mcp', 'get', 'old', '--json']);
    expect(parseJsonOutput<{ type?: string }>(get).type).toBe('sse');

    const status = await sandbox.run(['mcp', '--json', '--trust']);
    expect(parseJsonOutput<StatusJson>(status).servers[0]).toMatchObject({
      transport: 'sse',
      state: 'connected',
      tools: 17,
    });

    const bad = await sandbox.run(['mcp', 'add', 'x', '--url', url, '--transport', 'ws']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('clat mcp add: --transport must be stdio, http or sse, not "ws"');
  });

  it('a Streamable HTTP server is not taken for an HTTP+SSE one, and a server that speaks neither names all three attempts', async () => {
    const streamable = await startServerEverything();
    await sandbox.writeMcp({
      mcpServers: {
        modern: { url: `${streamable.origin}/mcp` },
        // A path nothing is served on: 404 to the POSTs and to the GET.
        wrong: { url: `${streamable.origin}/nothing` },
      },
    });
    const status = await sandbox.run(['mcp', '--json', '--trust']);
    const [modern, wrong] = parseJsonOutput<StatusJson>(status).servers;
    expect(modern).toMatchObject({ transport: 'http', state: 'connected' });
    expect(wrong?.state).toBe('failed');
    expect(wrong?.failure).toContain('MCP server "wrong" failed every handshake: modern probe:');
    expect(wrong?.failure).toContain(
      `sse transport: MCP server at ${streamable.origin} answered the HTTP+SSE stream (GET) with HTTP 404`,
    );
    expect(status.code).toBe(1);
    // The text view: what the HTML 404 pages say, and no tail that repeats the error.
    const text = await sandbox.run(['mcp', '--trust']);
    expect(text.stdout).toContain(
      'legacy initialize: could not send initialize to MCP server "wrong": MCP server at',
    );
    expect(text.stdout).toContain('with HTTP 404: Cannot POST /nothing;');
    expect(text.stdout).toContain('with HTTP 404: Cannot GET /nothing');
    expect(text.stdout).not.toContain('DOCTYPE');
    expect(text.stdout).not.toContain('recent HTTP failures');
  });

  describe.skipIf(!hasTmux())('in a session (tmux)', () => {
    let tmux: TmuxSession | undefined;
    afterEach(() => {
      tmux?.kill();
      tmux = undefined;
    });

    it('the server restarts on its port: the next /call opens a new stream and session', async () => {
      let everything = await startServerEverything(0, 'sse');
      const port = everything.port;
      await sandbox.writeMcp({
        mcpServers: { everything: { type: 'sse', url: `http://127.0.0.1:${port}/sse` } },
      });
      tmux = new TmuxSession(`clat-sse-${process.pid}-${Date.now()}`);
      tmux.startClat(sandbox);
      await tmux.waitFor('MCP servers: 1 configured · 0 connecting · 1 connected', 0, 30_000);

      let mark = tmux.capture().length;
      tmux.line('/call mcp_everything_echo {"message":"before the restart"}');
      await tmux.waitFor('Echo: before the restart', mark);

      await everything.stop();
      everything = await startServerEverything(port, 'sse');
      mark = tmux.capture().length;
      tmux.line('/call mcp_everything_echo {"message":"after the restart"}');
      await tmux.waitFor('Echo: after the restart', mark, 20_000);
      expect(sessions(everything)).toBe(1);

      mark = tmux.capture().length;
      tmux.line('/mcp');
      await tmux.waitFor(/everything\s+sse\s+connected .*GET stream open\b/, mark);

      tmux.line('/exit');
      await tmux.waitFor('EXITED:0', mark);
    });
  });
});
