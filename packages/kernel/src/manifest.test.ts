import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  capabilityLabels,
  MANIFEST_LIMITS,
  manifestJsonSchema,
  normalizeSha256,
  type PluginManifestInput,
  parseManifest,
  parseSha256,
  relativePathProblem,
} from './manifest.js';

const DIGEST = 'ab'.repeat(32);

function base(): PluginManifestInput {
  return {
    manifestVersion: 1,
    id: 'mcp-notes',
    name: 'Notes',
    version: '0.1.0',
    runtime: { kind: 'mcp-stdio', entry: 'bin/server.mjs', sha256: DIGEST, args: ['--stdio'] },
    capabilities: { tools: true, prompts: true, hostTools: ['read_file'] },
    prompts: [{ name: 'usage', system: 'Use the notes tools.' }],
    configSchema: { type: 'object', required: ['dataDir'] },
  };
}

function issuesOf(value: unknown): string[] {
  const result = parseManifest('pkg/clat-plugin.json', value);
  if (result.ok) return [];
  return result.issues.map((issue) => `${issue.path}: ${issue.message}`);
}

describe('parseManifest', () => {
  it('accepts a full v1 manifest and fills defaults', () => {
    const result = parseManifest('clat-plugin.json', JSON.stringify(base()));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.manifest.capabilities).toEqual({
      tools: true,
      prompts: true,
      sampling: false,
      elicitation: false,
      hostContext: false,
      hostTools: ['read_file'],
    });
  });

  it('normalizes a prefixed, upper-case digest', () => {
    const manifest = base();
    manifest.runtime.sha256 = `SHA256:${DIGEST.toUpperCase()}`;
    const result = parseManifest('m', manifest);
    expect(result.ok && result.manifest.runtime.sha256).toBe(DIGEST);
    expect(normalizeSha256(`sha256:${DIGEST}`)).toBe(DIGEST);
  });

  it('parses a written digest with parseSha256 (space, prefix, case) and refuses a malformed one', () => {
    expect(parseSha256(` SHA256:${DIGEST.toUpperCase()}\n`)).toBe(DIGEST);
    expect(parseSha256(DIGEST)).toBe(DIGEST);
    expect(parseSha256(DIGEST.slice(1))).toBeUndefined();
    expect(parseSha256(`md5:${DIGEST}`)).toBeUndefined();
    expect(parseSha256(`${DIGEST.slice(1)}g`)).toBeUndefined();
  });

  it('rejects unknown fields at every level, naming them', () => {
    expect(issuesOf({ ...base(), extra: 1 })).toEqual(['(root): unknown field(s) "extra"']);
    const nested = base();
    (nested.runtime as Record<string, unknown>).cwd = '/tmp';
    expect(issuesOf(nested)).toEqual(['runtime: unknown field(s) "cwd"']);
    const caps = base();
    (caps.capabilities as Record<string, unknown>).network = true;
    expect(issuesOf(caps)).toEqual(['capabilities: unknown field(s) "network"']);
  });

  it('names the fields it knows where a field is unknown, for a did-you-mean', () => {
    const known = (value: unknown) => {
      const result = parseManifest('clat-plugin.json', value);
      return result.ok ? [] : result.issues.map((issue) => issue.knownKeys);
    };
    const { capabilities, ...rest } = base();
    expect(known({ ...rest, capabilites: capabilities })[0]).toContain('capabilities');
    const runtime = base();
    (runtime.runtime as Record<string, unknown>).interpeter = 'node';
    expect(known(runtime)[0]).toEqual(['kind', 'entry', 'sha256', 'args', 'env', 'interpreter']);
    const caps = base();
    (caps.capabilities as Record<string, unknown>).tool = true;
    expect(known(caps)[0]).toContain('tools');
    const field = base();
    field.userConfig = { key: { type: 'string', title: 'Key', secret: true } as never };
    expect(known(field)[0]).toContain('sensitive');
  });

  it('rejects bad identity fields', () => {
    expect(issuesOf({ ...base(), id: 'Notes' })[0]).toMatch(/^id: must match/);
    expect(issuesOf({ ...base(), manifestVersion: 2 })[0]).toMatch(/^manifestVersion/);
    expect(issuesOf({ ...base(), version: '' })[0]).toMatch(/^version/);
    expect(issuesOf({ ...base(), name: 'x'.repeat(129) })[0]).toMatch(/^name/);
  });

  it('rejects escaping or absolute entries and bad digests', () => {
    for (const entry of ['../x', 'a/../../x', '/abs', 'a\\b', 'a//b', './a', 'C:/x', '']) {
      const manifest = base();
      manifest.runtime.entry = entry;
      expect(issuesOf(manifest)[0], entry).toMatch(/^runtime\.entry: entry /);
    }
    const manifest = base();
    manifest.runtime.sha256 = 'abc';
    expect(issuesOf(manifest)[0]).toMatch(/^runtime\.sha256: must be 64 hex/);
  });

  it('accepts runtime env, the node interpreter and userConfig, and bounds them', () => {
    const good = base();
    good.runtime.env = {
      MEMORY_FILE_PATH: '${CLAT_PLUGIN_DATA}/memory.jsonl',
      TOKEN: '${config.token}',
    };
    good.runtime.interpreter = 'node';
    good.userConfig = {
      token: { type: 'string', title: 'API token', sensitive: true, required: true },
      depth: { type: 'number', title: 'Depth', default: 3, min: 1, max: 9 },
    };
    expect(issuesOf(good)).toEqual([]);
    const badName = base();
    badName.runtime.env = { 'A=B': 'x' };
    expect(issuesOf(badName)[0]).toMatch(/^runtime\.env\.A=B: Invalid key/);
    const wasmEnv = base();
    wasmEnv.runtime.kind = 'wasm-component';
    delete wasmEnv.runtime.args;
    wasmEnv.runtime.env = { A: 'b' };
    expect(issuesOf(wasmEnv)).toEqual(['runtime.env: env is only allowed for mcp-stdio packages']);
    const badField = base();
    badField.userConfig = { token: { type: 'secret', title: 'x' } as never };
    expect(issuesOf(badField)[0]).toMatch(/^userConfig\.token\.type/);
  });

  it('enforces the args, hostTools and prompt rules', () => {
    const wasm = base();
    wasm.runtime.kind = 'wasm-component';
    expect(issuesOf(wasm)).toEqual(['runtime.args: args are only allowed for mcp-stdio packages']);
    const tooMany = base();
    tooMany.runtime.args = Array.from({ length: MANIFEST_LIMITS.args + 1 }, () => 'a');
    expect(issuesOf(tooMany)[0]).toMatch(/^runtime\.args/);
    const dupTools = base();
    dupTools.capabilities = { hostTools: ['read_file', 'read_file'] };
    expect(issuesOf(dupTools)).toContain('capabilities.hostTools: must not repeat a host tool');
    const noPromptCap = base();
    noPromptCap.capabilities = { tools: true };
    expect(issuesOf(noPromptCap)).toEqual([
      'prompts: static prompts require capabilities.prompts = true',
    ]);
    const dupPrompts = base();
    dupPrompts.prompts = [
      { name: 'a', system: 'x' },
      { name: 'a', system: 'y' },
    ];
    expect(issuesOf(dupPrompts)).toEqual(['prompts[1].name: duplicate prompt name "a"']);
    const bigPrompt = base();
    bigPrompt.prompts = [
      { name: 'a', system: 'é'.repeat(MANIFEST_LIMITS.promptSystemBytes / 2 + 1) },
    ];
    expect(issuesOf(bigPrompt)[0]).toMatch(/^prompts\[0\]\.system/);
  });

  it('reports invalid JSON, non-objects and oversized text without throwing', () => {
    expect(parseManifest('f', '{')).toMatchObject({ ok: false, issues: [{ path: '(root)' }] });
    expect(parseManifest('f', [])).toMatchObject({ ok: false });
    const big = JSON.stringify({
      ...base(),
      description: 'x'.repeat(MANIFEST_LIMITS.manifestBytes),
    });
    expect(parseManifest('f', big)).toMatchObject({ ok: false, issues: [{ path: '(root)' }] });
  });
});

describe('relativePathProblem', () => {
  it('accepts plain nested relative paths', () => {
    expect(relativePathProblem('dist/server.mjs')).toBeUndefined();
    expect(relativePathProblem('a..b/c')).toBeUndefined();
  });
});

describe('capabilityLabels', () => {
  it('lists enabled capabilities and one label per host tool, sorted', () => {
    expect(
      capabilityLabels({
        tools: true,
        prompts: false,
        sampling: true,
        elicitation: false,
        hostContext: true,
        hostTools: ['search', 'read_file'],
      }),
    ).toEqual(['tools', 'sampling', 'hostContext', 'hostTools.read_file', 'hostTools.search']);
  });
});

describe('committed manifest JSON Schema', () => {
  const file = new URL('../schemas/clat-plugin-manifest.schema.json', import.meta.url);
  it('matches the zod schema (regenerate: UPDATE_SCHEMAS=1 npx vitest run --project kernel manifest)', () => {
    const fresh = manifestJsonSchema();
    if (process.env.UPDATE_SCHEMAS === '1')
      writeFileSync(file, `${JSON.stringify(fresh, null, 2)}\n`);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(fresh);
  });

  it('is strict and requires the identity fields', () => {
    const schema = manifestJsonSchema() as {
      additionalProperties: unknown;
      required: string[];
    };
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(
      expect.arrayContaining(['manifestVersion', 'id', 'name', 'version', 'runtime']),
    );
  });
});
