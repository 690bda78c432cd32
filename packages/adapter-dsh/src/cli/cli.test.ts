import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolvePluginPackage } from './entry.js';
import {
  capabilitiesFor,
  inspectPlugin,
  scanContextReferences,
  scanHostToolCalls,
} from './inspect.js';
import { defaultPackageId } from './package.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clat-dsh-cli-unit-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('static scans', () => {
  it('finds ctx members in dot, optional and bracket form', () => {
    expect(
      scanContextReferences(
        "ctx.tools.register(x); ctx?.shell.run(); ctx['fs'].readText(); notctx.web",
      ),
    ).toEqual(['fs', 'shell', 'tools']);
  });

  it('finds literal host tools named in callTool()', () => {
    expect(
      scanHostToolCalls(
        "ctx.clat.callTool('run_command', {}); clat.callTool(\"search\"); callTool('ask_user')",
      ),
    ).toEqual(['run_command', 'search']);
  });

  it('maps seams to package capabilities', () => {
    expect(capabilitiesFor(new Set(['shell', 'llm']), true)).toEqual({
      tools: true,
      prompts: false,
      sampling: true,
      elicitation: false,
      hostContext: true,
      hostTools: ['run_command'],
    });
    expect(capabilitiesFor(new Set(['clat', 'systemPrompt']), false, ['search'])).toMatchObject({
      tools: false,
      prompts: true,
      hostContext: true,
      hostTools: ['search'],
    });
  });
});

describe('package ids and entries', () => {
  it('derives dsh.<sanitized npm name>', () => {
    expect(defaultPackageId('@acme/DSH Todo!')).toBe('dsh.acme-dsh-todo');
    expect(defaultPackageId('@@@')).toBe('dsh.plugin');
    expect(defaultPackageId('x'.repeat(300))).toHaveLength(128);
  });

  it('resolves exports["."] (conditions), then main, then src/index, and refuses entries outside', async () => {
    const pkg = join(dir, 'pkg');
    await mkdir(join(pkg, 'lib'), { recursive: true });
    await mkdir(join(pkg, 'src'), { recursive: true });
    await writeFile(join(pkg, 'lib', 'plugin.js'), 'export function apply() {}\n');
    await writeFile(join(pkg, 'src', 'index.ts'), 'export function apply() {}\n');
    await writeFile(
      join(pkg, 'package.json'),
      JSON.stringify({ exports: { '.': { import: './lib/plugin.js' } } }),
    );
    expect((await resolvePluginPackage(pkg, dir)).entry).toBe(join(pkg, 'lib', 'plugin.js'));
    await writeFile(join(pkg, 'package.json'), JSON.stringify({ main: './missing.js' }));
    expect((await resolvePluginPackage(pkg, dir)).entry).toBe(join(pkg, 'src', 'index.ts'));
    await writeFile(join(pkg, 'package.json'), JSON.stringify({ main: '../escape.js' }));
    await expect(resolvePluginPackage(pkg, dir)).rejects.toThrow(/points outside the package/);
    await writeFile(join(pkg, 'package.json'), '{ nope');
    await expect(resolvePluginPackage(pkg, dir)).rejects.toThrow(/package\.json is not valid JSON/);
  });
});

describe('inspectPlugin', () => {
  it('combines inject, apply() accesses and source references, and reports apply failures', async () => {
    const pkg = join(dir, 'inspected');
    await mkdir(pkg, { recursive: true });
    await writeFile(
      join(pkg, 'index.js'),
      [
        "export const inject = ['tools', 'llm?'];",
        'export function apply(ctx, config) {',
        "  if (config.token === undefined) throw new Error('token missing');",
        "  ctx.tools.register({ name: 't', description: '', parameters: { type: 'object' }, output: { render: () => [] }, execute: () => ctx.shell.run({ command: 'ls' }) });",
        '}',
        '',
      ].join('\n'),
    );
    const resolved = await resolvePluginPackage(pkg, dir);
    const failed = await inspectPlugin(resolved);
    expect(failed).toMatchObject({ applied: false, status: 'host-bridged', unsupported: [] });
    expect(failed.applyError).toContain('token missing');
    expect(failed.seams).toEqual(['tools', 'llm', 'shell']);
    const ok = await inspectPlugin(resolved, { config: { token: 'x' }, toolHints: { t: 'write' } });
    expect(ok).toMatchObject({ applied: true, tools: [{ name: 't', hint: 'write' }] });
    expect(ok.capabilities).toMatchObject({
      tools: true,
      sampling: true,
      hostTools: ['run_command'],
    });
  });
});
