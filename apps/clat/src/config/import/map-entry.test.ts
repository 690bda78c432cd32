import { describe, expect, it } from 'vitest';
import { inputVariable, mapForeignEntry } from './map-entry.js';

const base = { home: '/home/u', inputs: new Map() };

describe('mapForeignEntry', () => {
  it('reads Gemini httpUrl as Streamable HTTP and url as HTTP+SSE', () => {
    expect(
      mapForeignEntry(
        { httpUrl: 'https://g.example/mcp', headers: { 'X-A': '1' }, trust: true, timeout: 5 },
        { ...base, client: 'gemini' },
      ),
    ).toEqual({
      entry: { url: 'https://g.example/mcp', headers: { 'X-A': '1' } },
      notes: [
        '"trust" was not imported: CLAT asks per its permission mode',
        '"timeout" was not imported: CLAT applies its own limits (10 s handshake, 120 s per call)',
      ],
    });
    expect(
      mapForeignEntry(
        { url: 'https://g.example/sse', headers: { Authorization: 'Bearer ${TOKEN}' } },
        { ...base, client: 'gemini' },
      ),
    ).toEqual({
      entry: {
        type: 'sse',
        url: 'https://g.example/sse',
        headers: { Authorization: 'Bearer ${TOKEN}' },
      },
      notes: [],
    });
    // Gemini's `type: "http"` makes `url` Streamable HTTP.
    expect(
      mapForeignEntry(
        { type: 'http', url: 'https://g.example/mcp' },
        { ...base, client: 'gemini' },
      ),
    ).toEqual({ entry: { url: 'https://g.example/mcp' }, notes: [] });
  });

  it("rewrites Gemini's bare $VAR to ${VAR}, in every string, and leaves other clients' $ alone", () => {
    expect(
      mapForeignEntry(
        {
          command: 'node',
          args: ['$HOME/srv.js', '--key=${KEY}', 'cost $5'],
          env: { TOKEN: '$GH_TOKEN', MIXED: 'a$B_1-c' },
        },
        { ...base, client: 'gemini' },
      ),
    ).toEqual({
      entry: {
        command: 'node',
        args: ['${HOME}/srv.js', '--key=${KEY}', 'cost $5'],
        env: { TOKEN: '${GH_TOKEN}', MIXED: 'a${B_1}-c' },
      },
      notes: [
        '$HOME is written ${HOME} in CLAT (it is expanded when the project mounts)',
        '$GH_TOKEN is written ${GH_TOKEN} in CLAT (it is expanded when the project mounts)',
        '$B_1 is written ${B_1} in CLAT (it is expanded when the project mounts)',
      ],
    });
    expect(
      mapForeignEntry(
        { httpUrl: 'https://g.example/mcp', headers: { Authorization: 'Bearer $API_KEY' } },
        { ...base, client: 'gemini' },
      ).entry,
    ).toEqual({ url: 'https://g.example/mcp', headers: { Authorization: 'Bearer ${API_KEY}' } });
    expect(
      mapForeignEntry({ command: 'run', env: { P: 'pa$word' } }, { ...base, client: 'cursor' })
        .entry,
    ).toEqual({ command: 'run', env: { P: 'pa$word' } });
  });

  it('maps "type": "sse" of the other clients to an HTTP+SSE entry, and their http to Streamable HTTP', () => {
    expect(
      mapForeignEntry(
        { type: 'sse', url: 'http://localhost:9/sse' },
        { ...base, client: 'claude-code' },
      ),
    ).toEqual({ entry: { type: 'sse', url: 'http://localhost:9/sse' }, notes: [] });
    expect(
      mapForeignEntry(
        { type: 'http', url: 'https://h.example/mcp' },
        { ...base, client: 'cursor' },
      ),
    ).toEqual({ entry: { url: 'https://h.example/mcp' }, notes: [] });
  });

  it('keeps stdio fields, stringifies numeric args and env, and drops cosmetic fields quietly', () => {
    expect(
      mapForeignEntry(
        { command: 'srv', args: ['--port', 8080], env: { N: 3 }, cwd: 'work', description: 'd' },
        { ...base, client: 'cursor' },
      ),
    ).toEqual({
      entry: { command: 'srv', args: ['--port', '8080'], env: { N: '3' }, cwd: 'work' },
      notes: [],
    });
  });

  it('says when "args" is not a list instead of dropping it silently, and names where from', () => {
    expect(
      mapForeignEntry(
        { command: 'srv', args: '--port 8080', disabled: true },
        { ...base, client: 'claude-code', from: 'the JSON' },
      ),
    ).toEqual({
      entry: { command: 'srv', disabled: true },
      notes: [
        '"args" is not a list of words, so it was left out',
        'disabled in the JSON: added disabled ("clat mcp enable" starts it)',
      ],
    });
  });

  it('leaves ${workspaceFolder} outside args/env as written, with a note', () => {
    const mapped = mapForeignEntry(
      { command: '${workspaceFolder}/bin/srv' },
      { ...base, client: 'vscode' },
    );
    expect(mapped.entry).toEqual({ command: '${workspaceFolder}/bin/srv' });
    expect(mapped.notes[0]).toContain('only supported in args and env');
  });

  it('refuses entries without command or URL, and non-objects', () => {
    expect(mapForeignEntry({ foo: 1 }, { ...base, client: 'cursor' }).skipped).toBe(
      'the entry has neither a command nor a URL',
    );
    expect(mapForeignEntry('x', { ...base, client: 'cursor' }).skipped).toBe(
      'the entry is not an object',
    );
  });

  it('names input variables after the input id', () => {
    expect(inputVariable('api-key')).toBe('API_KEY');
    expect(inputVariable('2fa')).toBe('INPUT_2FA');
  });

  it("carries a hand-registered OAuth client over (Claude Code's callbackPort, Gemini CLI's secret)", () => {
    expect(
      mapForeignEntry(
        {
          type: 'http',
          url: 'https://c.example/mcp',
          oauth: { clientId: 'cc-1', callbackPort: 8080, scopes: 'read write' },
        },
        { ...base, client: 'claude-code' },
      ),
    ).toEqual({
      entry: {
        url: 'https://c.example/mcp',
        oauth: { clientId: 'cc-1', callbackPort: 8080, scopes: ['read', 'write'] },
      },
      notes: [
        `a client secret of "oauth.clientId" is not in claude-code's file: if the client has one, add the entry again with --client-secret (see clat mcp add --help)`,
      ],
    });
    expect(
      mapForeignEntry(
        {
          httpUrl: 'https://g.example/mcp',
          oauth: {
            enabled: true,
            clientId: 'g-1',
            clientSecret: '$G_SECRET',
            tokenUrl: 'https://g.example/token',
            scopes: ['mcp'],
          },
        },
        { ...base, client: 'gemini' },
      ),
    ).toEqual({
      entry: {
        url: 'https://g.example/mcp',
        oauth: { clientId: 'g-1', clientSecret: '${G_SECRET}', scopes: ['mcp'] },
      },
      notes: [
        '$G_SECRET is written ${G_SECRET} in CLAT (it is expanded when the project mounts)',
        '"oauth.tokenUrl" was not imported: CLAT discovers the authorization server from the MCP server (sign in with clat mcp login once it is added)',
      ],
    });
  });
});
