import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCAFFOLD_KINDS, scaffoldToolName, writeScaffold } from './scaffold.js';
import { SCAFFOLD_VERSIONS } from './sdk-versions.js';

const require = createRequire(import.meta.url);
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clat-scaffold-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('clat plugin new', () => {
  it('depends on the SDK versions of this release', () => {
    for (const name of ['@clat/kernel', '@clat/adapter-dsh', '@clat/wasm-guest-sdk'] as const) {
      const { version } = require(`../../../../packages/${name.slice(6)}/package.json`) as {
        version: string;
      };
      expect(SCAFFOLD_VERSIONS[name], name).toBe(`^${version}`);
    }
  });

  it('writes each kind with a manifest or package id, a tool with a schema, a test and a README', async () => {
    for (const kind of SCAFFOLD_KINDS) {
      const result = await writeScaffold(kind, `demo-${kind}`, join(dir, kind));
      expect(result.files).toEqual(
        expect.arrayContaining(['package.json', 'README.md', 'src/count-words.test.ts']),
      );
      expect(result.tool).toBe(scaffoldToolName(kind, `demo-${kind}`));
      const pkg = JSON.parse(await readFile(join(dir, kind, 'package.json'), 'utf8'));
      expect(pkg).toMatchObject({ name: `demo-${kind}`, scripts: { build: expect.any(String) } });
      expect(await readFile(join(dir, kind, 'README.md'), 'utf8')).toContain(result.tool);
    }
    expect(scaffoldToolName('wasm', 'my-tool')).toBe('wasm_my_tool_word_count');
  });

  it('never overwrites: a non-empty directory and a bad name are refused, naming them', async () => {
    const taken = join(dir, 'taken');
    await mkdir(taken, { recursive: true });
    await writeFile(join(taken, 'keep.txt'), 'mine');
    await expect(writeScaffold('mcp', 'ok', taken)).rejects.toMatchObject({
      code: 'CLI_TARGET_EXISTS',
      message: `clat plugin new: ${taken} already exists and is not empty; choose a new directory`,
    });
    expect(await readFile(join(taken, 'keep.txt'), 'utf8')).toBe('mine');
    await expect(writeScaffold('dsh', 'Bad Name', join(dir, 'bad'))).rejects.toMatchObject({
      code: 'CLI_USAGE',
      message: expect.stringContaining('name "Bad Name" must be lowercase'),
    });
  });
});

describe("the mcp scaffold's package script", () => {
  it('names clat-plugin.json and keeps the last build when the manifest is wrong', async () => {
    const { execFile } = await import('node:child_process');
    const project = join(dir, 'package-script');
    await writeScaffold('mcp', 'pkg-script', project);
    const built = join(project, 'dist', 'package', 'server.mjs');
    await mkdir(join(project, 'dist', 'package'), { recursive: true });
    await writeFile(built, '// the last build\n');
    const run = () =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = execFile(process.execPath, ['scripts/package.mjs'], { cwd: project });
        let stderr = '';
        child.stderr?.on('data', (chunk: string) => {
          stderr += chunk;
        });
        child.on('close', (code) => resolve({ code, stderr }));
      });
    const manifestFile = join(project, 'clat-plugin.json');
    const manifest = await readFile(manifestFile, 'utf8');

    await writeFile(manifestFile, manifest.replace('"id"', 'id'));
    const broken = await run();
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/^clat-plugin\.json: cannot be read as JSON \(.+\)\n$/);

    await writeFile(manifestFile, manifest.replace('"server.mjs"', '"../server.mjs"'));
    const outside = await run();
    expect(outside.code).toBe(1);
    expect(outside.stderr).toBe(
      'clat-plugin.json: runtime.entry must be a file name in the package, such as "server.mjs"\n',
    );
    expect(await readFile(built, 'utf8')).toBe('// the last build\n');
  });
});
