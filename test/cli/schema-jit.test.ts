/**
 * zod's JIT through the real `clat` binary (apps/clat bin-schema-jit.ts): the binary parses its
 * schemas without compiling zod's fast paths, which no code cache keeps. A preload counts the
 * fast paths zod compiles (fixtures/count-zod-fast-paths.cjs). The same command through the main
 * bundle's main() alone, as a program embedding it would run it, compiles them: that shows the
 * count sees them.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_FIXTURES, REPO_ROOT, useCliSandbox, WASM_MANIFEST } from './support.js';

const COUNT = ['--require', join(CLI_FIXTURES, 'count-zod-fast-paths.cjs')];
const BUNDLE = join(REPO_ROOT, 'apps/clat/dist/bin/main.cjs');
/** Runs main() of the bundle on the arguments after the binary's path (`node -e` keeps them). */
const MAIN_ONLY = [
  '-e',
  `require(${JSON.stringify(BUNDLE)}).main(process.argv.slice(2)).then((code) => { process.exitCode = code; });`,
];

const sandbox = useCliSandbox(async () => {
  await sandbox.run(['trust']);
  // A WASM plugin whose manifest each start parses; its tools list once the guest started.
  await writeFile(
    join(sandbox.home, 'plugins.json'),
    JSON.stringify({ 'wasm-summarize': { manifest: WASM_MANIFEST } }),
  );
});

function fastPaths(stderr: string): number {
  const match = /^ZOD-FAST-PATHS (\d+)$/m.exec(stderr);
  if (match === null) throw new Error(`the count is missing from stderr:\n${stderr}`);
  return Number(match[1]);
}

describe('zod without its JIT in the CLI', () => {
  it('clat tools parses the plugin manifest and its config without compiling a fast path', async () => {
    const viaBin = await sandbox.run(['tools', '--json'], { nodeArgs: COUNT });
    expect(viaBin.code, viaBin.stderr).toBe(0);
    const { tools } = JSON.parse(viaBin.stdout) as { tools: { name: string }[] };
    const names = tools.map((tool) => tool.name);
    expect(names).toContain('wasm_wasm_summarize_project_info');
    expect(fastPaths(viaBin.stderr)).toBe(0);

    const mainOnly = await sandbox.run(['tools', '--json'], { nodeArgs: [...COUNT, ...MAIN_ONLY] });
    expect(mainOnly.code, mainOnly.stderr).toBe(0);
    expect(JSON.parse(mainOnly.stdout)).toEqual(JSON.parse(viaBin.stdout));
    expect(fastPaths(mainOnly.stderr)).toBeGreaterThan(0);
  });

  it('a manifest zod refuses is refused the same way, naming the file and the field', async () => {
    const manifest = join(sandbox.project, 'bad-manifest.json');
    await writeFile(
      manifest,
      JSON.stringify({ manifestVersion: 1, id: 'Bad Id', name: 'x', version: '1', runtime: {} }),
    );
    await writeFile(join(sandbox.home, 'plugins.json'), JSON.stringify({ bad: { manifest } }));
    // `clat mcp` shows why a source failed: the manifest's path and every field zod refused.
    const viaBin = await sandbox.run(['mcp'], { nodeArgs: COUNT });
    const mainOnly = await sandbox.run(['mcp'], { nodeArgs: [...COUNT, ...MAIN_ONLY] });
    expect(fastPaths(viaBin.stderr)).toBe(0);
    expect(fastPaths(mainOnly.stderr)).toBeGreaterThan(0);
    const reason = (stdout: string) => stdout.split('\n').find((line) => line.includes('error:'));
    expect(reason(viaBin.stdout)).toMatch(
      /error: manifest .*bad-manifest\.json: id: must match .*; runtime\.kind: /,
    );
    expect(reason(viaBin.stdout)).toBe(reason(mainOnly.stdout));
  });
});
