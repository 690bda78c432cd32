import { chmod, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonValue } from '@clat/kernel';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  capabilityExpansion,
  inspectPackage,
  parseConfigJson,
  readConfigFile,
  validateConfig,
} from './inspect.js';
import { writeFixturePackage } from './test-fixtures.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'inspect-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('inspectPackage', () => {
  it('returns the manifest, tree digest, entry and capability labels', async () => {
    await writeFixturePackage(dir, { capabilities: { tools: true, hostTools: ['read_file'] } });
    const inspected = await inspectPackage(dir);
    expect(inspected.manifest.id).toBe('fixture');
    expect(inspected.entry).toMatchObject({ path: 'bin/server.mjs', executable: true });
    expect(inspected.capabilities).toEqual(['tools', 'hostTools.read_file']);
    expect(inspected.tree.treeSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(inspected.trust).toBe('local-unverified');
  });

  it('rejects a missing manifest and unknown manifest fields, naming the file and field', async () => {
    await expect(inspectPackage(dir)).rejects.toMatchObject({
      code: 'MANIFEST_INVALID',
      message: expect.stringContaining('clat-plugin.json does not exist'),
    });
    await writeFixturePackage(dir, { manifest: { extra: true } as never });
    await expect(inspectPackage(dir)).rejects.toMatchObject({
      code: 'MANIFEST_INVALID',
      message: 'clat-plugin.json: (root): unknown field(s) "extra"',
    });
  });

  it('rejects an entry digest mismatch', async () => {
    await writeFixturePackage(dir);
    await writeFile(join(dir, 'bin', 'server.mjs'), '#!/usr/bin/env node\n// changed\n');
    await expect(inspectPackage(dir)).rejects.toMatchObject({
      code: 'ENTRY_INVALID',
      message: expect.stringMatching(
        /^clat-plugin.json: runtime.sha256 does not match bin\/server.mjs/,
      ),
    });
  });

  it('rejects a missing, non-executable or escaping entry', async () => {
    await writeFixturePackage(dir, { executable: false });
    await expect(inspectPackage(dir)).rejects.toMatchObject({
      code: 'ENTRY_INVALID',
      message:
        'bin/server.mjs must be executable (chmod +x) for an mcp-stdio package, or name its interpreter: "runtime": {"interpreter": "node", …} in clat-plugin.json',
    });
    // Executable JavaScript without "#!" would go to /bin/sh at launch: refused, with the fix.
    await writeFixturePackage(dir, { entryText: "import 'node:fs';\n" });
    await expect(inspectPackage(dir)).rejects.toMatchObject({
      code: 'ENTRY_INVALID',
      message: expect.stringContaining(
        'bin/server.mjs is JavaScript without a "#!" line, so it cannot run as a program: set "runtime": {"interpreter": "node", …}',
      ),
    });
    await chmod(join(dir, 'bin', 'server.mjs'), 0o755);
    const { manifest } = await writeFixturePackage(dir);
    await writeFile(
      join(dir, 'clat-plugin.json'),
      JSON.stringify({ ...manifest, runtime: { ...manifest.runtime, entry: '../outside' } }),
    );
    await expect(inspectPackage(dir)).rejects.toMatchObject({
      code: 'MANIFEST_INVALID',
      message: expect.stringContaining('runtime.entry: entry must not contain ".." components'),
    });
    await writeFile(
      join(dir, 'clat-plugin.json'),
      JSON.stringify({ ...manifest, runtime: { ...manifest.runtime, entry: 'bin/missing' } }),
    );
    await expect(inspectPackage(dir)).rejects.toMatchObject({
      code: 'ENTRY_INVALID',
      message: 'clat-plugin.json: runtime.entry "bin/missing" does not exist in the package',
    });
  });

  it('rejects an entry that is a symlink pointing outside the package', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'outside-'));
    try {
      await writeFixturePackage(outside);
      await writeFixturePackage(dir);
      await rm(join(dir, 'bin', 'server.mjs'));
      await symlink(join(outside, 'bin', 'server.mjs'), join(dir, 'bin', 'server.mjs'));
      await expect(inspectPackage(dir)).rejects.toMatchObject({
        code: 'TREE_SPECIAL_FILE',
        message: 'bin/server.mjs is a symlink',
      });
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});

describe('capabilities and config', () => {
  const caps = (over: object) => ({
    tools: false,
    prompts: false,
    sampling: false,
    elicitation: false,
    hostContext: false,
    hostTools: [] as string[],
    ...over,
  });

  it('lists only added capabilities on update, all on install', () => {
    expect(capabilityExpansion(undefined, caps({ tools: true }))).toEqual(['tools']);
    expect(capabilityExpansion(caps({ tools: true }), caps({ tools: true }))).toEqual([]);
    expect(
      capabilityExpansion(
        caps({ tools: true, hostTools: ['a'] }),
        caps({ tools: true, sampling: true, hostTools: ['a', 'b'] }),
      ),
    ).toEqual(['sampling', 'hostTools.b']);
    expect(capabilityExpansion(caps({ tools: true, sampling: true }), caps({}))).toEqual([]);
  });

  it('checks required config keys and the 64 KiB cap', async () => {
    const { manifest } = await writeFixturePackage(dir, {
      configSchema: { type: 'object', required: ['token'] },
    });
    const parsed = (await inspectPackage(dir)).manifest;
    expect(() => validateConfig(parsed, undefined)).toThrow('needs a config with "token"');
    expect(() => validateConfig(parsed, { other: 1 })).toThrow(
      'config for fixture: the config is missing required field "token"',
    );
    expect(() => validateConfig(parsed, ['x'])).toThrow('the config must be object');
    expect(() => validateConfig(parsed, { token: 'x'.repeat(64 * 1024) })).toThrow(
      'over the 65536-byte limit',
    );
    expect(() => validateConfig(parsed, { token: 't' })).not.toThrow();
    expect(manifest.id).toBe('fixture');
  });

  // Issue 14 item 7: the schema is enforced as JSON Schema, and prototype keys satisfy nothing.
  it('enforces configSchema with a real JSON Schema validator and own properties', async () => {
    await writeFixturePackage(dir, {
      configSchema: {
        type: 'object',
        properties: { token: { type: 'string', minLength: 1 }, dataDir: { type: 'string' } },
        required: ['token'],
        additionalProperties: false,
      },
    });
    const parsed = (await inspectPackage(dir)).manifest;
    expect(() => validateConfig(parsed, { token: 't', evil: 1 })).toThrow(
      'the config has unknown field "evil"',
    );
    expect(() => validateConfig(parsed, { token: 't', dataDir: 42 })).toThrow(
      'config/dataDir must be string',
    );
    expect(() => validateConfig(parsed, { token: '' })).toThrow(
      'config/token must NOT have fewer than 1 characters',
    );
    expect(() => validateConfig(parsed, { token: 't', dataDir: '/d' })).not.toThrow();

    await writeFixturePackage(dir, {
      configSchema: { type: 'object', required: ['constructor', 'toString'] },
    });
    const proto = (await inspectPackage(dir)).manifest;
    expect(() => validateConfig(proto, {})).toThrow('missing required field "constructor"');
    expect(() =>
      validateConfig(proto, JSON.parse('{"constructor":1,"toString":2}') as JsonValue),
    ).not.toThrow();
  });

  it('refuses a configSchema that is not a valid 2020-12 schema at inspect', async () => {
    await writeFixturePackage(dir, { configSchema: { type: 'object', minProperties: 'two' } });
    await expect(inspectPackage(dir)).rejects.toMatchObject({
      code: 'MANIFEST_INVALID',
      message: expect.stringContaining('configSchema is not a valid JSON Schema 2020-12'),
    });
    await writeFixturePackage(dir, {
      configSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' },
    });
    await expect(inspectPackage(dir)).rejects.toThrow('use JSON Schema 2020-12');
  });

  it('reads --config-json and a bounded, non-symlink --config-file', async () => {
    expect(parseConfigJson('{"a":1}')).toEqual({ a: 1 });
    expect(() => parseConfigJson('{')).toThrow('--config-json is not valid JSON');
    const file = join(dir, 'config.json');
    await writeFile(file, '{"dataDir":"/x"}');
    expect(await readConfigFile(file)).toEqual({ dataDir: '/x' });
    await symlink(file, join(dir, 'link.json'));
    await expect(readConfigFile(join(dir, 'link.json'))).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining('is a symlink'),
    });
    await writeFile(join(dir, 'big.json'), `"${'x'.repeat(70 * 1024)}"`);
    await expect(readConfigFile(join(dir, 'big.json'))).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
    });
  });
});

describe('wasm-component packages', () => {
  async function wasmPackage(bytes: Buffer) {
    const { createHash } = await import('node:crypto');
    await writeFile(join(dir, 'plugin.wasm'), bytes);
    await writeFile(
      join(dir, 'clat-plugin.json'),
      JSON.stringify({
        manifestVersion: 1,
        id: 'wasm-demo',
        name: 'Wasm demo',
        version: '1.0.0',
        runtime: {
          kind: 'wasm-component',
          entry: 'plugin.wasm',
          sha256: createHash('sha256').update(bytes).digest('hex'),
        },
        capabilities: { tools: true },
      }),
    );
  }

  it('accepts a component without an exec bit and rejects core modules and non-wasm', async () => {
    await wasmPackage(Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00]));
    expect((await inspectPackage(dir)).manifest.runtime.kind).toBe('wasm-component');
    await wasmPackage(Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]));
    await expect(inspectPackage(dir)).rejects.toMatchObject({
      code: 'ENTRY_INVALID',
      message: expect.stringContaining('plugin.wasm is a core WebAssembly module, not a component'),
    });
    await wasmPackage(Buffer.from('#!/bin/sh\n'));
    await expect(inspectPackage(dir)).rejects.toMatchObject({
      message: 'plugin.wasm is not a WebAssembly binary',
    });
  });
});
