import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WasmGrantStore } from './grants.js';
import { disallowedImports } from './import-policy.js';
import { parsePluginsJson, resolveManifestEntry } from './plugins-json.js';

const SHA = 'ab'.repeat(32);

describe('the import allowlist', () => {
  it('allows clat:plugin and the sandboxed WASI subset, refuses network and unknown imports', () => {
    expect(
      disallowedImports([
        'clat:plugin/host@0.1.0',
        'wasi:cli/stdout@0.2.3',
        'wasi:filesystem/preopens@0.2.12',
        'wasi:http/outgoing-handler@0.2.10',
        'wasi:sockets/tcp@0.2.0',
        'acme:spy/exfiltrate',
      ]),
    ).toEqual([
      'acme:spy/exfiltrate',
      'wasi:http/outgoing-handler@0.2.10',
      'wasi:sockets/tcp@0.2.0',
    ]);
  });

  it('checks versions: only clat:plugin@0.1.0 and WASI 0.2.x, never an unversioned name', () => {
    expect(
      disallowedImports([
        'clat:plugin/host@0.1.0',
        'clat:plugin/host@0.2.0',
        'clat:plugin/config@0.1.1',
        'clat:plugin/sampling',
        'wasi:cli/stdout@0.2.0',
        'wasi:cli/stderr@0.3.0',
        'wasi:io/poll',
      ]),
    ).toEqual([
      'clat:plugin/config@0.1.1',
      'clat:plugin/host@0.2.0',
      'clat:plugin/sampling',
      'wasi:cli/stderr@0.3.0',
      'wasi:io/poll',
    ]);
  });
});

describe('plugins.json', () => {
  const paths = { clatHome: '/home/u/.clat', home: '/home/u' };

  it('resolves paths (~/, relative to the CLAT home, absolute) and keeps config and pins', () => {
    const parsed = parsePluginsJson(
      JSON.stringify({
        a: { path: '~/plugins/a.wasm', config: { k: 1 }, sha256: `sha256:${SHA.toUpperCase()}` },
        b: { path: 'plugins/b.wasm', dirs: ['~/notes', '/tmp/out'] },
        c: { manifest: '/opt/pkg/clat-plugin.json' },
      }),
      paths,
    );
    expect(parsed.issues).toEqual([]);
    expect(parsed.entries).toEqual([
      { id: 'a', path: '/home/u/plugins/a.wasm', dirs: [], config: { k: 1 }, sha256: SHA },
      { id: 'b', path: '/home/u/.clat/plugins/b.wasm', dirs: ['/home/u/notes', '/tmp/out'] },
      { id: 'c', manifest: '/opt/pkg/clat-plugin.json', dirs: [] },
    ]);
  });

  it('reports each bad entry with its id and field, and keeps the good ones', () => {
    const parsed = parsePluginsJson(
      JSON.stringify({
        good: { path: 'g.wasm' },
        both: { path: 'x.wasm', manifest: 'y' },
        neither: { config: {} },
        typo: { path: 'x.wasm', dris: [] },
        badsha: { path: 'x.wasm', sha256: 'xyz' },
        'bad id!': { path: 'x.wasm' },
      }),
      { ...paths, file: 'plugins.json' },
    );
    expect(parsed.entries.map((entry) => entry.id)).toEqual(['good']);
    const text = parsed.issues.map((issue) => `${issue.id}: ${issue.message}`).join('\n');
    expect(text).toContain('plugins.json: plugin "both": set exactly one of "path"');
    expect(text).toContain('plugins.json: plugin "neither": set exactly one of "path"');
    expect(text).toContain('plugin "typo": typo: unknown field(s) "dris"');
    expect(text).toContain('plugin "badsha": badsha.sha256: must be a SHA-256 hex digest');
    expect(text).toContain('plugin "bad id!": the id must be');
  });

  it('keeps "sensitive" config keys, and names the entry and field when they do not fit', () => {
    const parsed = parsePluginsJson(
      JSON.stringify({
        keyed: {
          path: 'k.wasm',
          config: { api_key: 'k-1', model: 'gpt-4o' },
          sensitive: ['api_key', 'api_key'],
        },
        stray: { path: 'x.wasm', config: { apikey: 'k-2' }, sensitive: ['api_key'] },
        bare: { path: 'x.wasm', sensitive: ['token'] },
        listed: { path: 'x.wasm', config: ['k-3'], sensitive: ['0'] },
        empty: { path: 'x.wasm', config: { a: 1 }, sensitive: [''] },
      }),
      { ...paths, file: 'plugins.json' },
    );
    expect(parsed.entries).toEqual([
      {
        id: 'keyed',
        path: '/home/u/.clat/k.wasm',
        dirs: [],
        config: { api_key: 'k-1', model: 'gpt-4o' },
        sensitive: ['api_key'],
      },
    ]);
    expect(parsed.issues.map((issue) => issue.message)).toEqual([
      'plugins.json: plugin "stray": "sensitive" names "api_key", which is not a key of "config" (keys: "apikey")',
      'plugins.json: plugin "bare": "sensitive" names keys of "config", but "config" is not an object',
      'plugins.json: plugin "listed": "sensitive" names keys of "config", but "config" is not an object',
      'plugins.json: plugin "empty": empty.sensitive[0]: must be a non-empty key of "config"',
    ]);
  });

  it('fails as a whole only when the file is not a JSON object', () => {
    expect(() => parsePluginsJson('{', paths)).toThrow('plugins.json is not valid JSON');
    expect(() => parsePluginsJson('[]', paths)).toThrow('must be a JSON object');
  });
});

describe('manifest entries', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'clat-manifest-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const write = (manifest: Record<string, unknown>) =>
    writeFileSync(join(dir, 'clat-plugin.json'), JSON.stringify(manifest));
  const base = {
    manifestVersion: 1,
    id: 'demo',
    name: 'Demo',
    version: '1',
    runtime: { kind: 'wasm-component', entry: 'dist/plugin.wasm', sha256: SHA },
  };

  it('resolves the entry inside the package and the capability ceiling', async () => {
    write({ ...base, capabilities: { sampling: true, hostTools: ['read_file'] } });
    const resolved = await resolveManifestEntry({ id: 'demo', manifest: dir, dirs: [] });
    expect(resolved).toEqual({
      componentPath: join(dir, 'dist', 'plugin.wasm'),
      sha256: SHA,
      capabilities: {
        tools: false,
        hostContext: false,
        sampling: true,
        elicitation: false,
        hostTools: ['read_file'],
      },
      sensitive: [],
    });
  });

  it('names the userConfig keys the manifest marks sensitive', async () => {
    write({
      ...base,
      userConfig: {
        api_key: { type: 'string', title: 'API key', sensitive: true },
        model: { type: 'string', title: 'Model' },
        pin: { type: 'number', title: 'PIN', sensitive: true },
      },
    });
    const resolved = await resolveManifestEntry({ id: 'demo', manifest: dir, dirs: [] });
    expect(resolved.sensitive).toEqual(['api_key', 'pin']);
  });

  it('rejects an id mismatch, a non-wasm runtime, an escaping entry and disagreeing pins', async () => {
    write(base);
    await expect(resolveManifestEntry({ id: 'other', manifest: dir, dirs: [] })).rejects.toThrow(
      'differs from the plugins.json key "other"',
    );
    write({ ...base, runtime: { kind: 'mcp-stdio', entry: 'x', sha256: SHA } });
    await expect(resolveManifestEntry({ id: 'demo', manifest: dir, dirs: [] })).rejects.toThrow(
      'not "wasm-component"',
    );
    write({ ...base, runtime: { ...base.runtime, entry: '../x.wasm' } });
    await expect(resolveManifestEntry({ id: 'demo', manifest: dir, dirs: [] })).rejects.toThrow(
      'runtime.entry',
    );
    write(base);
    await expect(
      resolveManifestEntry({ id: 'demo', manifest: dir, dirs: [], sha256: 'cd'.repeat(32) }),
    ).rejects.toThrow('disagrees with runtime.sha256');
  });

  it('applies the full manifest v1 rules: digest, unknown fields, no args for a component', async () => {
    const resolveDemo = () => resolveManifestEntry({ id: 'demo', manifest: dir, dirs: [] });
    write({ ...base, runtime: { kind: 'wasm-component', entry: 'dist/plugin.wasm' } });
    await expect(resolveDemo()).rejects.toThrow('runtime.sha256');
    write({ ...base, runtime: { ...base.runtime, args: ['--verbose'] } });
    await expect(resolveDemo()).rejects.toThrow('args are only allowed for mcp-stdio packages');
    write({ ...base, capabilites: { tools: true } });
    await expect(resolveDemo()).rejects.toThrow('capabilites');
    write({ ...base, capabilities: { tools: true, network: true } });
    await expect(resolveDemo()).rejects.toThrow('network');
  });

  it('validates the entry config against the configSchema required keys', async () => {
    write({
      ...base,
      configSchema: { type: 'object', required: ['endpoint'], properties: { endpoint: {} } },
    });
    const resolveWith = (config?: unknown) =>
      resolveManifestEntry(
        { id: 'demo', manifest: dir, dirs: [], ...(config === undefined ? {} : { config }) },
        { validateConfig: true },
      );
    await expect(resolveWith()).rejects.toThrow('configSchema requires "endpoint"');
    await expect(resolveWith(['x'])).rejects.toThrow('is not an object');
    await expect(resolveWith({ other: 1 })).rejects.toThrow('lacks required field(s) "endpoint"');
    await expect(resolveWith({ endpoint: 'http://127.0.0.1' })).resolves.toMatchObject({
      sha256: SHA,
    });
    // Without validateConfig (config held elsewhere, e.g. by the package store) it is not checked.
    await expect(
      resolveManifestEntry({ id: 'demo', manifest: dir, dirs: [] }),
    ).resolves.toMatchObject({ sha256: SHA });
  });
});

describe('plugin-grants.json', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'clat-grants-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('binds a grant to plugin name, digest and the exact directory set, and persists it', async () => {
    const path = join(dir, 'plugin-grants.json');
    const store = await WasmGrantStore.load(path);
    expect(store.covers('p', SHA, ['/w'])).toBe(false);
    await store.grant('p', SHA, ['/w', '/a']);
    expect(store.covers('p', SHA.toUpperCase(), ['/a', '/w'])).toBe(true);
    expect(store.covers('p', SHA, ['/w', '/other'])).toBe(false);
    expect(store.covers('p', 'cd'.repeat(32), ['/w'])).toBe(false);
    expect(store.covers('q', SHA, ['/w'])).toBe(false);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      version: 1,
      grants: [{ plugin: 'p', sha256: SHA, dirs: ['/a', '/w'] }],
    });
    expect((await WasmGrantStore.load(path)).covers('p', SHA, ['/w'])).toBe(true);
  });

  it('writes through a temporary file of its own: a link planted under a guessable name is not followed', async () => {
    // The old temporary name was `.<pid>.<Date.now()>.grants.tmp`, opened with 'w'.
    const now = 1_700_000_000_000;
    vi.useFakeTimers({ toFake: ['Date'], now });
    try {
      const victim = join(dir, 'victim');
      writeFileSync(victim, 'untouched');
      symlinkSync(victim, join(dir, `.${process.pid}.${now}.grants.tmp`));
      const path = join(dir, 'plugin-grants.json');
      await (await WasmGrantStore.load(path)).grant('p', SHA, ['/w']);
      expect(readFileSync(victim, 'utf8')).toBe('untouched');
      expect(lstatSync(path).isFile()).toBe(true);
      expect(statSync(path).mode & 0o777).toBe(0o600);
    } finally {
      vi.useRealTimers();
    }
  });

  it('treats a corrupt or unknown-version file as no grants, with a warning', async () => {
    const path = join(dir, 'plugin-grants.json');
    writeFileSync(path, '{not json');
    const corrupt = await WasmGrantStore.load(path);
    expect(corrupt.list()).toEqual([]);
    expect(corrupt.warning).toContain('not valid JSON');
    writeFileSync(
      path,
      JSON.stringify({ version: 2, grants: [{ plugin: 'p', sha256: SHA, dirs: ['/w'] }] }),
    );
    const future = await WasmGrantStore.load(path);
    expect(future.covers('p', SHA, ['/w'])).toBe(false);
    expect(future.warning).toContain('not a version 1 grants file');
    mkdirSync(join(dir, 'sub'));
    expect((await WasmGrantStore.load(join(dir, 'sub', 'missing.json'))).warning).toBeUndefined();
  });
});
