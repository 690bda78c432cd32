/**
 * The standalone GET stream and the HTTP era fallbacks through the real `clat` binary: `clat mcp`
 * shows per server whether a GET stream is open; under tmux, an elicitation the server sends on
 * its GET stream while `/call` waits reaches the user, and the call completes with the answer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  type HttpFixture,
  startDualEraServer,
  startSessionServer,
  stopAllHttpFixtures,
} from '../fixtures/http-servers/spawn.js';
import { parseJsonOutput, useCliSandbox } from './support.js';
import { hasTmux, TmuxSession } from './tmux.js';

interface StatusJson {
  servers: {
    name: string;
    state: string;
    era?: string;
    tools: number;
    failure?: string;
    getStream?: string;
  }[];
}

const sandbox = useCliSandbox(undefined, { teardown: stopAllHttpFixtures });

describe('GET stream and era fallback via clat', () => {
  it('clat mcp shows the GET stream per server; slow and future-only discovery fall back', async () => {
    const [stream, nostream, loaded, future, modern] = await Promise.all([
      startSessionServer('get'),
      startSessionServer('get-405'),
      startSessionServer('slow-discover', { FIXTURE_DISCOVER_DELAY_MS: '3500' }),
      startSessionServer('old-discover'),
      startDualEraServer(),
    ]);
    await sandbox.writeMcp({
      mcpServers: {
        stream: { url: `${stream.origin}/mcp` },
        nostream: { url: `${nostream.origin}/mcp` },
        loaded: { url: `${loaded.origin}/mcp` },
        future: { url: `${future.origin}/mcp` },
        modern: { url: `${modern.origin}/` },
      },
    });
    const json = await sandbox.run(['mcp', '--json', '--trust'], { timeoutMs: 90_000 });
    const byName = Object.fromEntries(
      parseJsonOutput<StatusJson>(json).servers.map((server) => [server.name, server]),
    );
    for (const name of ['stream', 'nostream', 'loaded', 'future', 'modern']) {
      expect(byName[name]?.state, `${name}: ${byName[name]?.failure}`).toBe('connected');
    }
    expect(byName.stream).toMatchObject({ era: 'legacy', getStream: 'open' });
    expect(byName.nostream).toMatchObject({ era: 'legacy', getStream: 'none' });
    // A discover slower than the 3 s probe, and one without 2026-07-28: legacy after all.
    expect(byName.loaded?.era).toBe('legacy');
    expect(byName.future?.era).toBe('legacy');
    // The modern era has no GET stream at all.
    expect(byName.modern).toMatchObject({ era: 'modern', getStream: 'none' });
    expect(stream.stderr()).toMatch(/REQ \{"verb":"GET","method":null,"session":true/);

    const text = await sandbox.run(['mcp', '--trust'], { timeoutMs: 90_000 });
    expect(text.stdout).toMatch(/stream\s+http\s+connected .*3 tools, GET stream open\b/);
    expect(text.stdout).toMatch(/nostream\s+http\s+connected .*3 tools, no GET stream/);
  });

  it('clat mcp waits for GET streams the servers answer late', async () => {
    // Both servers hold the GET well past the handshake and tools/list: without the wait the
    // status would show both streams as still opening.
    const held = { FIXTURE_GET_DELAY_MS: '800' };
    const [stream, nostream] = await Promise.all([
      startSessionServer('get', held),
      startSessionServer('get-405', held),
    ]);
    await sandbox.writeMcp({
      mcpServers: {
        stream: { url: `${stream.origin}/mcp` },
        nostream: { url: `${nostream.origin}/mcp` },
      },
    });
    const text = await sandbox.run(['mcp', '--trust'], { timeoutMs: 60_000 });
    expect(text.stdout).toMatch(/stream\s+http\s+connected .*3 tools, GET stream open\b/);
    expect(text.stdout).toMatch(/nostream\s+http\s+connected .*3 tools, no GET stream/);

    // The second run knows the era already, so its surface is ready even sooner.
    const json = await sandbox.run(['mcp', '--json', '--trust'], { timeoutMs: 60_000 });
    const byName = Object.fromEntries(
      parseJsonOutput<StatusJson>(json).servers.map((server) => [server.name, server]),
    );
    expect(byName.stream).toMatchObject({ state: 'connected', getStream: 'open' });
    expect(byName.nostream).toMatchObject({ state: 'connected', getStream: 'none' });
  });

  describe.skipIf(!hasTmux())('interactive (tmux)', () => {
    let tmux: TmuxSession;
    let server: HttpFixture;
    afterEach(() => tmux.kill());

    it('/mcp waits out a GET the server never answers once, not at every /mcp', async () => {
      server = await startSessionServer('get', { FIXTURE_GET_DELAY_MS: '60000' });
      await sandbox.writeMcp({ mcpServers: { hung: { url: `${server.origin}/mcp` } } });
      tmux = new TmuxSession(`clat-get-hung-${process.pid}-${Date.now()}`);
      tmux.startClat(sandbox);
      await tmux.waitFor('MCP servers: 1 configured · 0 connecting · 1 connected');
      await server.waitFor(/REQ \{"verb":"GET"/);

      // Two /mcp typed at once: the first waits its 2 s for the GET, then shows it still
      // opening; the second shows the same right after it instead of waiting 2 s more.
      const mark = tmux.capture().length;
      const typed = Date.now();
      tmux.line('/mcp');
      tmux.line('/mcp');
      const opening = /hung\s+http\s+connected .*GET stream opening/;
      await tmux.waitFor(opening, mark);
      expect(Date.now() - typed).toBeGreaterThanOrEqual(1_900);
      await tmux.waitFor(new RegExp(`${opening.source}[\\s\\S]*${opening.source}`), mark);
      expect(Date.now() - typed).toBeLessThan(3_200);

      tmux.line('/exit');
      await tmux.waitFor('EXITED:0', mark);
    });

    it('answers an elicitation sent on the GET stream while /call waits', async () => {
      // The server holds its GET answer past the handshake: `/mcp` typed right after the
      // footer shows the server connected waits for the stream instead of showing it opening.
      server = await startSessionServer('get', { FIXTURE_GET_DELAY_MS: '1000' });
      await sandbox.writeMcp({ mcpServers: { remote: { url: `${server.origin}/mcp` } } });
      tmux = new TmuxSession(`clat-get-${process.pid}-${Date.now()}`);
      tmux.startClat(sandbox);
      await tmux.waitFor('MCP servers: 1 configured · 0 connecting · 1 connected');

      let mark = tmux.capture().length;
      tmux.line('/mcp');
      await tmux.waitFor(/remote\s+http\s+connected .*GET stream open\b/, mark);

      mark = tmux.capture().length;
      tmux.line('/call mcp_remote_ask_on_get {"question":"Which fruit?"}');
      await tmux.waitFor('Which fruit?', mark);
      await tmux.waitFor('Answer', mark);
      await server.waitFor('EVENT elicit on GET');
      tmux.line('banana');
      await tmux.waitFor('answer: banana', mark);
      await server.waitFor('EVENT elicitation answered accept');

      mark = tmux.capture().length;
      tmux.line('/exit');
      await tmux.waitFor('EXITED:0', mark);
      // Teardown ended the session: the last request the server saw is its DELETE.
      await server.waitFor(/REQ \{"verb":"DELETE"/);
    });
  });
});
