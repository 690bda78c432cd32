/**
 * `clat tools` spawns a trusted project's plain stdio servers before it loads the rest of itself
 * (apps/clat/src/project/prestart.ts), and the stdio transport adopts those processes. Through
 * the real binary: nothing is spawned for an untrusted project, each start still spawns exactly
 * the processes it did without a prestart (no double spawn), and a run that fails after the
 * prestart leaves no process behind. The prestart runs from the bin's CommonJS pre-loader, which
 * must stay small and ship with the package.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pidAlive } from '@clat/process';
import { describe, expect, it } from 'vitest';
import {
  CLI_FIXTURES,
  PRESTART_TAG,
  REPO_ROOT,
  STDIO_FIXTURES,
  spawnedTags,
  useCliSandbox,
} from './support.js';

let spawnLog: string;

const sandbox = useCliSandbox(async () => {
  spawnLog = join(sandbox.root, 'spawns.log');
  await writeFile(spawnLog, '');
});

/** Pids of the server processes started so far (one "spawn" line each). */
async function spawnedPids(): Promise<number[]> {
  return (await readFile(spawnLog, 'utf8'))
    .split('\n')
    .filter((line) => line.includes('spawn'))
    .map((line) => Number.parseInt(line, 10));
}

function legacyServer(): Record<string, unknown> {
  return {
    ...sandbox.node(join(STDIO_FIXTURES, 'legacy.mjs')),
    env: { CLAT_FIXTURE_SPAWN_LOG: spawnLog },
  };
}

describe('clat tools prestart', () => {
  it('spawns nothing for an untrusted project, neither from mcp.json nor from the project file', async () => {
    const userMarker = join(sandbox.root, 'user-spawned');
    const projectMarker = join(sandbox.root, 'project-spawned');
    await sandbox.writeMcp({
      touch: sandbox.node(join(CLI_FIXTURES, 'touch-and-exit.mjs'), userMarker),
    });
    await mkdir(join(sandbox.project, '.clat'), { recursive: true });
    await writeFile(
      join(sandbox.project, '.clat', 'mcp.json'),
      JSON.stringify({
        local: sandbox.node(join(CLI_FIXTURES, 'touch-and-exit.mjs'), projectMarker),
      }),
    );
    const result = await sandbox.run(['tools']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('is not trusted, so no MCP server was started');
    expect(existsSync(userMarker)).toBe(false);
    expect(existsSync(projectMarker)).toBe(false);
  });

  it('adopts the prestarted process: a remembered legacy server is spawned once per start', async () => {
    await sandbox.writeMcp({ old: legacyServer() });
    // First start: era unknown, so the prestarted process is the disposable modern probe and a
    // fresh one speaks legacy, as without a prestart.
    const first = await sandbox.run(['tools', '--trust'], { timeoutMs: 60_000 });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('mcp_old_');
    expect(await spawnedPids()).toHaveLength(2);
    const second = await sandbox.run(['tools', '--trust'], { timeoutMs: 60_000 });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('mcp_old_');
    const pids = await spawnedPids();
    expect(pids).toHaveLength(3);
    expect(pids.filter(pidAlive)).toEqual([]);
    // Each start's first process came from the bin's pre-loader; the fresh legacy process of the
    // first start (era unknown) from the transport.
    const tags = await spawnedTags(spawnLog);
    expect(tags[0]).toMatch(PRESTART_TAG);
    expect(tags[1]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect(tags[2]).toMatch(PRESTART_TAG);
  });

  it('starts an entry with ${VAR} references once, through the full load only', async () => {
    await sandbox.writeMcp({
      old: { ...legacyServer(), env: { CLAT_FIXTURE_SPAWN_LOG: '${SPAWN_LOG_PATH}' } },
    });
    const env = { SPAWN_LOG_PATH: spawnLog };
    expect((await sandbox.run(['tools', '--trust'], { env, timeoutMs: 60_000 })).code).toBe(0);
    const before = (await spawnedPids()).length;
    const again = await sandbox.run(['tools', '--trust'], { env, timeoutMs: 60_000 });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('mcp_old_');
    expect((await spawnedPids()).length - before).toBe(1);
  });

  it('stops a prestarted server when the run fails after the prestart (bad trust.json)', async () => {
    await sandbox.writeMcp({ old: legacyServer() });
    // `clat tools` goes on without a usable config.json; a trust.json it cannot parse stops it
    // (after the prestart, which --trust allows without reading it).
    await writeFile(join(sandbox.home, 'trust.json'), '{ not json');
    const result = await sandbox.run(['tools', '--trust'], { timeoutMs: 60_000 });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('trust.json');
    const pids = await spawnedPids();
    expect(pids.length).toBeLessThanOrEqual(1);
    expect(pids.filter(pidAlive)).toEqual([]);
  });
});

describe("the bin's CommonJS pre-loader", () => {
  const app = join(REPO_ROOT, 'apps/clat');

  it('is what bin/clat.js loads first, and holds no zod, kernel host or MCP client', () => {
    expect(JSON.parse(readFileSync(join(app, 'bin/package.json'), 'utf8'))).toEqual({
      type: 'commonjs',
    });
    const bin = readFileSync(join(app, 'bin/clat.js'), 'utf8');
    const boot = bin.indexOf("require('../dist/early/boot.cjs')");
    expect(boot).toBeGreaterThan(0);
    expect(boot).toBeLessThan(bin.indexOf('prestartForArgv(argv'));
    expect(bin.indexOf('prestartForArgv(argv')).toBeLessThan(bin.indexOf("'../dist/bin/main.cjs'"));
    const { sources } = JSON.parse(readFileSync(join(app, 'dist/early/boot.cjs.map'), 'utf8')) as {
      sources: string[];
    };
    expect(sources.some((source) => source.endsWith('project/prestart.ts'))).toBe(true);
    // What would make it slow to load, and so hold the spawn it exists to bring forward.
    const heavy = sources.filter((source) =>
      /zod|kernel\/src\/(host|registry|pipeline)|adapter-mcp\/src\/client/.test(source),
    );
    expect(heavy).toEqual([]);
  });

  it('ships with the package: bin/package.json, dist/early and the main bundle are packed', () => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: app,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const files = (JSON.parse(out) as { files: { path: string }[] }[])[0]?.files.map(
      (file) => file.path,
    );
    expect(files).toEqual(
      expect.arrayContaining([
        'bin/clat.js',
        'bin/package.json',
        'dist/early/boot.cjs',
        'dist/bin/main.cjs',
      ]),
    );
  });
});
