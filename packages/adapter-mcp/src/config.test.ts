import { describe, expect, it } from 'vitest';
import {
  describeServerConfig,
  parseMcpConfig,
  relativePathNote,
  relativePathWord,
  toolAllowedByEntry,
} from './config.js';

const FILE = '/home/u/.clat/mcp.json';

describe('parseMcpConfig', () => {
  it('parses the spec example: stdio with args/env/cwd and HTTP with headers', () => {
    const { servers, issues } = parseMcpConfig(
      FILE,
      JSON.stringify({
        filesystem: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'],
        },
        memory: { command: 'mcp-memory', env: { STORE: '/data' }, cwd: 'mcp-work' },
        'web-search': {
          url: 'https://example.com/mcp',
          headers: { Authorization: 'Bearer YOUR_API_KEY' },
        },
      }),
    );
    expect(issues).toEqual([]);
    expect(servers.map((s) => [s.name, s.transport])).toEqual([
      ['filesystem', 'stdio'],
      ['memory', 'stdio'],
      ['web-search', 'http'],
    ]);
    expect(servers[1]).toMatchObject({ env: { STORE: '/data' }, cwd: 'mcp-work', origin: 'user' });
  });

  it('leaves a URL with ${VAR} references to be checked once expanded', () => {
    const { servers, issues } = parseMcpConfig(
      FILE,
      JSON.stringify({
        whole: { url: '${DOCS_URL}' },
        port: { url: 'http://127.0.0.1:${PORT}/mcp' },
        fallback: { url: '${API_BASE_URL:-https://api.example.com}/mcp' },
        relative: { url: '/mcp' },
      }),
    );
    expect(servers.map((s) => s.name)).toEqual(['whole', 'port', 'fallback']);
    expect(issues).toMatchObject([{ path: 'relative.url', message: 'must be an absolute URL' }]);
  });

  it('accepts the mcpServers wrapper', () => {
    const { servers } = parseMcpConfig(FILE, '{"mcpServers":{"a":{"command":"x"}}}');
    expect(servers).toHaveLength(1);
  });

  it('isolates bad entries, naming the entry and field, and keeps the rest', () => {
    const { servers, issues } = parseMcpConfig(
      FILE,
      JSON.stringify({
        both: { command: 'x', url: 'https://a' },
        neither: { args: [] },
        badArgs: { command: 'x', args: 'not-an-array' },
        blank: { command: '  ' },
        ftp: { url: 'ftp://host/x' },
        extra: { command: 'x', timeout: 5 },
        ok: { command: 'node' },
      }),
    );
    expect(servers.map((s) => s.name)).toEqual(['ok']);
    const byPath = Object.fromEntries(issues.map((i) => [i.path, i.message]));
    expect(byPath.both).toMatch(/both "command" and "url"/);
    expect(byPath.neither).toMatch(/needs either "command".*or "url"/);
    expect(byPath['badArgs.args']).toBeDefined();
    expect(byPath['blank.command']).toMatch(/non-empty command/);
    expect(byPath['ftp.url']).toMatch(/http or https/);
    expect(byPath.extra).toMatch(/unknown field\(s\) "timeout"/);
    expect(issues.every((i) => i.file === FILE)).toBe(true);
  });

  it('reports invalid JSON and a non-object root as one issue', () => {
    expect(parseMcpConfig(FILE, '{').issues[0]).toMatchObject({
      path: '(root)',
      message: expect.stringMatching(/not valid JSON/),
    });
    expect(parseMcpConfig(FILE, '[]').issues[0]?.message).toMatch(/JSON object/);
  });

  it('ignores a byte order mark, as RFC 8259 lets a parser do', () => {
    const parsed = parseMcpConfig(FILE, '\ufeff{"mcpServers":{"a":{"command":"x"}}}');
    expect(parsed.issues).toEqual([]);
    expect(parsed.servers.map((server) => server.name)).toEqual(['a']);
  });
});

describe('describeServerConfig', () => {
  it('never shows header or env values', () => {
    const { servers } = parseMcpConfig(
      FILE,
      JSON.stringify({
        h: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer sekrit-123456' } },
        s: { command: 'x', env: { API_KEY: 'sekrit-abcdef' } },
      }),
    );
    const shown = JSON.stringify(servers.map(describeServerConfig));
    expect(shown).not.toContain('sekrit');
    expect(shown).toContain('Authorization');
    expect(shown).toContain('API_KEY');
  });

  it('refuses framing headers fetch sets itself, by field, keeping other headers', () => {
    const { servers, issues } = parseMcpConfig(
      FILE,
      JSON.stringify({
        ok: { url: 'https://a/mcp', headers: { Connection: 'close', 'X-Api-Key': 'k' } },
        length: { url: 'https://b/mcp', headers: { 'Content-Length': '5' } },
        chunked: { url: 'https://c/mcp', headers: { 'transfer-encoding': 'chunked' } },
      }),
    );
    expect(servers.map((server) => server.name)).toEqual(['ok']);
    expect(issues.map((issue) => `${issue.path}: ${issue.message}`)).toEqual([
      'length.headers.Content-Length: header "Content-Length" is set by the HTTP client for each request (fetch refuses or mismatches a configured one); remove it',
      'chunked.headers.transfer-encoding: header "transfer-encoding" is set by the HTTP client for each request (fetch refuses or mismatches a configured one); remove it',
    ]);
  });

  it('accepts an oauth object on HTTP entries and names the field of a bad one', () => {
    const { servers, issues } = parseMcpConfig(
      FILE,
      JSON.stringify({
        ok: {
          url: 'https://mcp.example/mcp',
          oauth: { clientId: 'abc', clientSecret: 'shh-secret', scopes: ['read', 'write'] },
        },
        cimd: { url: 'https://b/mcp', oauth: { clientMetadataUrl: 'https://app.example/c.json' } },
        machine: { url: 'https://c/mcp', oauth: { grant: 'client_credentials' } },
        plainCimd: { url: 'https://d/mcp', oauth: { clientMetadataUrl: 'http://app.example/c' } },
        typo: { url: 'https://e/mcp', oauth: { clientID: 'abc' } },
        scope: { url: 'https://f/mcp', oauth: { scopes: ['two words'] } },
      }),
    );
    expect(servers.map((s) => s.name)).toEqual(['ok', 'cimd']);
    const byPath = Object.fromEntries(issues.map((i) => [i.path, i.message]));
    expect(byPath['machine.oauth.clientId']).toMatch(/client_credentials" needs a clientId/);
    expect(byPath['plainCimd.oauth.clientMetadataUrl']).toMatch(/https URL with a path/);
    expect(byPath['typo.oauth']).toMatch(/unknown field\(s\) "clientID"/);
    expect(byPath['scope.oauth.scopes[0]']).toMatch(/one scope token/);
    const shown = JSON.stringify(describeServerConfig(servers[0] as (typeof servers)[0]));
    expect(shown).not.toContain('shh-secret');
    expect(shown).toContain('"clientSecret":"(set)"');
  });
});

describe('entry controls', () => {
  it('accepts disabled, includeTools and excludeTools on both transports', () => {
    const parsed = parseMcpConfig(
      'mcp.json',
      JSON.stringify({
        a: {
          command: 'x',
          disabled: true,
          includeTools: ['read_*'],
          excludeTools: ['read_secret'],
        },
        b: { url: 'https://x.example/mcp', excludeTools: ['*'] },
        c: { command: 'x', includeTools: [''] },
      }),
    );
    expect(parsed.servers.map((server) => server.name)).toEqual(['a', 'b']);
    expect(parsed.issues).toEqual([
      { file: 'mcp.json', path: 'c.includeTools[0]', message: 'must not be empty' },
    ]);
  });

  it('accepts "roots": false to keep the project root from a server, and names a bad value', () => {
    const { servers, issues } = parseMcpConfig(
      FILE,
      JSON.stringify({
        fs: { command: 'x', args: ['/data'], roots: false },
        bad: { command: 'x', roots: 'no' },
      }),
    );
    expect(servers.map((s) => [s.name, s.roots])).toEqual([['fs', false]]);
    expect(describeServerConfig(servers[0] as never)).toMatchObject({ roots: false });
    expect(issues).toEqual([expect.objectContaining({ path: 'bad.roots' })]);
  });

  it('filters tools: exclude wins, include narrows, * matches any run', () => {
    const entry = { includeTools: ['read_*', 'list'], excludeTools: ['read_secret'] };
    expect(toolAllowedByEntry(entry, 'read_file')).toBe(true);
    expect(toolAllowedByEntry(entry, 'read_secret')).toBe(false);
    expect(toolAllowedByEntry(entry, 'list')).toBe(true);
    expect(toolAllowedByEntry(entry, 'listing')).toBe(false);
    expect(toolAllowedByEntry({}, 'anything')).toBe(true);
    expect(toolAllowedByEntry({ includeTools: ['a.b'] }, 'aXb')).toBe(false);
  });
});

describe('relativePathNote', () => {
  const stdio = (fields: Record<string, unknown>) =>
    ({ transport: 'stdio', name: 'local', origin: 'project', command: 'node', ...fields }) as never;

  it('names relative paths of a project entry and the rooted path to write instead', () => {
    expect(
      relativePathNote(stdio({ args: ['./server.js', '--db=../data.db'] }), FILE, '/home/u/.clat'),
    ).toBe(
      `${FILE} entry "local" names "./server.js", "../data.db" relative to where its server runs (/home/u/.clat), not to the project: write "\${projectRoot}/server.js", or set "cwd"`,
    );
  });

  it('roots a bare "." at the project itself', () => {
    expect(relativePathNote(stdio({ command: 'npx', args: ['serve', '.'] }), FILE, '/h')).toBe(
      `${FILE} entry "local" names "." relative to where its server runs (/h), not to the project: write "\${projectRoot}", or set "cwd"`,
    );
  });

  it('says nothing of absolute or rooted paths, package names, or an entry with a cwd', () => {
    expect(
      relativePathNote(
        stdio({ args: ['/srv/server.js', '${projectRoot}/x.js', 'pkg'] }),
        FILE,
        '/h',
      ),
    ).toBeUndefined();
    expect(
      relativePathNote(stdio({ args: ['./server.js'], cwd: '/srv' }), FILE, '/h'),
    ).toBeUndefined();
  });
});

describe('relativePathWord', () => {
  it('reads a relative path, alone or as an option value', () => {
    expect(relativePathWord('.')).toEqual({ option: '', path: '.' });
    expect(relativePathWord('../db.sqlite')).toEqual({ option: '', path: '../db.sqlite' });
    expect(relativePathWord('--db=./data dir/x')).toEqual({
      option: '--db=',
      path: './data dir/x',
    });
    expect(relativePathWord('-d=..')).toEqual({ option: '-d=', path: '..' });
  });

  it('leaves other words alone', () => {
    for (const word of [
      'server.js',
      '.env',
      '...',
      '/abs',
      '${projectRoot}/x',
      '--flag',
      '--=./x',
      '@scope/pkg',
    ]) {
      expect(relativePathWord(word)).toBeUndefined();
    }
  });
});
