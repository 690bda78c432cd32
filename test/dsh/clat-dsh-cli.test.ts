/**
 * The `clat-dsh` bin as a user runs it: inspect, test and package against the example plugins
 * and fixtures, with the packaged output checked against manifest v1 and the entry digest.
 */
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MANIFEST_FILE, parseManifest } from '@clat/kernel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clatDsh, DSH_FIXTURES, REPO } from './harness.js';

let out: string;

beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), 'clat-dsh-cli-'));
});
afterAll(async () => {
  await rm(out, { recursive: true, force: true });
});

describe('clat-dsh inspect', () => {
  it('reports the seams, tools with effect hints and implied capabilities of dsh-todo', async () => {
    const result = await clatDsh(['inspect', join(REPO, 'plugins', 'dsh-todo'), '--json']);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({
      kind: 'object',
      name: 'dsh-todo',
      status: 'host-bridged',
      unsupported: [],
      applied: true,
      systemPrompt: true,
      tools: [
        { name: 'todo_list', hint: 'read-only' },
        { name: 'todo_add', hint: 'write' },
        { name: 'todo_done', hint: 'write' },
        { name: 'todo_clear', hint: 'destructive' },
      ],
      capabilities: {
        tools: true,
        prompts: true,
        sampling: false,
        elicitation: true,
        hostContext: true,
        hostTools: ['list_files', 'read_file', 'search', 'write_file', 'edit_file'],
      },
    });
    expect(report.seams).toEqual(['tools', 'userQuestions', 'systemPrompt', 'clat', 'fs']);
  });

  it('fails (exit 1) listing every seam the adapter cannot serve', async () => {
    const result = await clatDsh(['inspect', join(DSH_FIXTURES, 'spine-plugin.mjs')]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/status: +unsupported/);
    expect(result.stdout).toMatch(/unsupported: +database/);
    expect(result.stdout).toContain('[SPINE_SERVICE]');
  });

  it('names the problem for bad input', async () => {
    const missing = await clatDsh(['inspect', join(out, 'nope')]);
    expect(missing).toMatchObject({ code: 1 });
    expect(missing.stderr).toContain(`${join(out, 'nope')} does not exist`);
    expect(missing.stderr).toContain('[PLUGIN_NOT_LOADABLE]');
    expect(missing.stderr).not.toContain('usage:');
    const usage = await clatDsh(['frobnicate', '.']);
    expect(usage.code).toBe(1);
    expect(usage.stderr).toContain('unknown command frobnicate');
    expect(usage.stderr).toContain('usage:');
  });

  it('reports a plugin that does not compile as a build error with the compiler message', async () => {
    const plugin = join(out, 'broken-plugin');
    await mkdir(join(plugin, 'src'), { recursive: true });
    await writeFile(join(plugin, 'package.json'), '{"name":"broken","main":"src/index.ts"}');
    await writeFile(
      join(plugin, 'src/index.ts'),
      'export const name = "broken";\nexport function apply( {\n',
    );
    for (const command of ['inspect', 'package']) {
      const args = command === 'package' ? [plugin, '--out', join(out, 'never')] : [plugin];
      const result = await clatDsh([command, ...args]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        // The note that plugin code runs comes first; then the one error line.
        /^note: this runs the plugin's code .*\nclat-dsh: \[BUILD_FAILED\] building the plugin failed: src\/index\.ts:\d+:\d+: Expected .*\n$/,
      );
      expect(result.stderr).not.toContain('usage:');
    }
  });
});

describe('clat-dsh package and test', () => {
  it('writes an installable mcp-stdio package whose manifest and entry digest verify', async () => {
    const dest = join(out, 'todo-pkg');
    const result = await clatDsh(['package', join(REPO, 'plugins', 'dsh-todo'), '--out', dest]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('packaged dsh.todo 0.1.0');
    const parsed = parseManifest(MANIFEST_FILE, await readFile(join(dest, MANIFEST_FILE), 'utf8'));
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
    expect(parsed.manifest).toMatchObject({
      manifestVersion: 1,
      id: 'dsh.todo',
      runtime: { kind: 'mcp-stdio', entry: 'server.mjs', args: [] },
      capabilities: { tools: true, prompts: true, elicitation: true, hostContext: true },
      compatibility: { kind: 'dsh' },
    });
    // The zod Config became the package's config schema (defaults make `file` optional).
    expect(parsed.manifest.configSchema).toMatchObject({
      type: 'object',
      properties: { file: { type: 'string', default: '.clat-todo.json' } },
      additionalProperties: false,
    });
    expect(parsed.manifest.configSchema?.required).toBeUndefined();
    const entry = join(dest, 'server.mjs');
    const digest = createHash('sha256')
      .update(await readFile(entry))
      .digest('hex');
    expect(parsed.manifest.runtime.sha256).toBe(digest);
    expect((await stat(entry)).mode & 0o111).not.toBe(0);

    const smoke = await clatDsh(['test', dest]);
    expect(smoke.code, smoke.stderr).toBe(0);
    expect(smoke.stdout).toContain('modern:   server/discover ok (2026-07-28)');
    expect(smoke.stdout).toContain('prompts:  dsh-system-prompt');
    expect(smoke.stdout).toContain('todo_list {"readOnlyHint":true,"openWorldHint":false}');
  });

  it('refuses to overwrite an existing output without --force, and replaces it with --force', async () => {
    const dest = join(out, 'web-pkg');
    expect(
      (await clatDsh(['package', join(REPO, 'plugins', 'dsh-web-search'), '--out', dest])).code,
    ).toBe(0);
    await writeFile(join(dest, 'marker'), 'old');
    const again = await clatDsh([
      'package',
      join(REPO, 'plugins', 'dsh-web-search'),
      '--out',
      dest,
    ]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already exists');
    expect(await readFile(join(dest, 'marker'), 'utf8')).toBe('old');
    const forced = await clatDsh([
      'package',
      join(REPO, 'plugins', 'dsh-web-search'),
      '--out',
      dest,
      '--force',
    ]);
    expect(forced.code, forced.stderr).toBe(0);
    await expect(stat(join(dest, 'marker'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses to package a plugin with unsupported seams unless --allow-partial', async () => {
    const dest = join(out, 'spine-pkg');
    const refused = await clatDsh([
      'package',
      join(DSH_FIXTURES, 'spine-plugin.mjs'),
      '--out',
      dest,
      '--id',
      'dsh.spine',
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('cannot serve: database');
    await expect(stat(dest)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('names package.json clat mistakes by file and key, before writing anything', async () => {
    const plugin = join(out, 'counter-plugin');
    await mkdir(plugin, { recursive: true });
    await copyFile(join(DSH_FIXTURES, 'apply-counter.mjs'), join(plugin, 'index.mjs'));
    const manifest = join(plugin, 'package.json');
    const dest = join(out, 'counter-pkg');
    const withClat = (clat: unknown) =>
      writeFile(manifest, JSON.stringify({ name: 'counter', main: 'index.mjs', clat }));
    const pack = (...extra: string[]) => clatDsh(['package', plugin, '--out', dest, ...extra]);

    // A misspelt hint would leave the real tool Destructive: refused, naming what exists.
    await withClat({ toolHints: { pdi: 'read-only' } });
    const stray = await pack();
    expect(stray.code).toBe(1);
    expect(stray.stderr).toContain(
      `${manifest} clat.toolHints names "pdi", which the plugin does not register; its tools: pid, wait`,
    );
    expect(stray.stderr).not.toContain('usage:');
    await expect(stat(dest)).rejects.toMatchObject({ code: 'ENOENT' });
    const inspected = await clatDsh(['inspect', plugin]);
    expect(inspected.code).toBe(1);
    expect(inspected.stdout).toMatch(/tools: +pid \[destructive\], wait \[destructive\]/);
    expect(inspected.stderr).toContain('names "pdi"');
    expect(inspected.stderr).toContain('"clat-dsh package" refuses this');
    // The same typo in the flag is the command's usage problem.
    const flag = await pack('--hints-json', '{"pdi":"write"}');
    expect(flag.code).toBe(1);
    expect(flag.stderr).toContain('--hints-json names "pdi"');
    expect(flag.stderr).toContain('usage:');

    await withClat({ id: 'My Counter' });
    const badId = await pack();
    expect(badId.code).toBe(1);
    expect(badId.stderr).toContain(`${manifest} clat.id "My Counter" must be lowercase letters`);
    expect(badId.stderr).toContain('[PLUGIN_NOT_LOADABLE]');
    expect(badId.stderr).not.toContain('usage:');
    const flagId = await pack('--id', 'My Counter');
    expect(flagId.stderr).toContain('--id "My Counter" must be lowercase letters');
    expect(flagId.stderr).toContain('usage:');

    await withClat({ toolhints: { pid: 'read-only' } });
    const unknownKey = await pack();
    expect(unknownKey.code).toBe(1);
    expect(unknownKey.stderr).toContain(
      `${manifest} clat.toolhints is not a key CLAT reads; use id, toolHints, package`,
    );
    await withClat({ id: 7 });
    expect((await pack()).stderr).toContain(`${manifest} clat.id must be a string`);
    await expect(stat(dest)).rejects.toMatchObject({ code: 'ENOENT' });

    // Right, it packages, with the hint applied; `package` is `clat plugin`'s key (as
    // `clat plugin new dsh` writes it).
    await withClat({ id: 'dsh.counter', toolHints: { pid: 'read-only' }, package: 'dist/package' });
    const good = await pack('--no-smoke');
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).toContain('packaged dsh.counter');
  });

  it('fails the smoke with the server stderr when the plugin cannot start', async () => {
    const smoke = await clatDsh(['test', join(DSH_FIXTURES, 'spine-plugin.mjs')]);
    expect(smoke.code).toBe(1);
    expect(smoke.stderr).toMatch(/legacy smoke failed: .*server stderr: .*SPINE_SERVICE/);
  });
});
