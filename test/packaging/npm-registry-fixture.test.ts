import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type NpmRegistryFixture,
  resolveInstalledPackage,
  startNpmRegistry,
} from '../support/npm-registry.js';

const run = promisify(execFile);

describe('local npm registry fixture', () => {
  let registry: NpmRegistryFixture;
  let temp: string;

  beforeAll(async () => {
    temp = await mkdtemp(join(tmpdir(), 'clat-npm-registry-'));
    registry = await startNpmRegistry();
  });
  afterAll(async () => {
    await registry.close();
    await rm(temp, { recursive: true, force: true });
  });

  it('serves a real dependency closure that the npm client installs offline', async () => {
    const root = registry.publishClosure(
      resolveInstalledPackage('@modelcontextprotocol/server-memory'),
    );
    expect(root.name).toBe('@modelcontextprotocol/server-memory');
    expect(root.packages).toBeGreaterThan(20);
    const env = { PATH: process.env.PATH ?? '', HOME: temp, ...registry.npmEnv(join(temp, 'npm')) };
    const project = join(temp, 'project');
    await run(
      'npm',
      [
        'install',
        '--prefix',
        project,
        '--omit=dev',
        '--ignore-scripts',
        `${root.name}@${root.version}`,
      ],
      { env, cwd: temp, timeout: 120_000 },
    );
    const installed = JSON.parse(
      await readFile(
        join(project, 'node_modules/@modelcontextprotocol/server-memory/package.json'),
        'utf8',
      ),
    ) as { version: string };
    expect(installed.version).toBe(root.version);
    const lock = JSON.parse(await readFile(join(project, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { resolved?: string; integrity?: string }>;
    };
    const entry = lock.packages['node_modules/@modelcontextprotocol/server-memory'];
    expect(entry?.integrity).toBe(root.integrity);
    expect(entry?.resolved?.startsWith(registry.url)).toBe(true);
    expect(
      registry.requests.some((line) => line.startsWith('GET /@modelcontextprotocol/sdk')),
    ).toBe(true);
  }, 180_000);

  it('accepts npm publish and moves dist-tags', async () => {
    const dir = join(temp, 'pub');
    const { mkdir, writeFile } = await import('node:fs/promises');
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, 'package.json'),
      JSON.stringify({ name: '@fixture/hello', version: '1.0.0', bin: { hello: 'hello.js' } }),
    );
    await writeFile(join(dir, 'hello.js'), '#!/usr/bin/env node\nconsole.log("hello")\n');
    const env = { PATH: process.env.PATH ?? '', HOME: temp, ...registry.npmEnv(join(temp, 'npm')) };
    await run('npm', ['publish', '--access', 'public'], { env, cwd: dir, timeout: 60_000 });
    registry.publishDir(dir, { packageJson: { version: '1.1.0' } });
    const { stdout } = await run('npm', ['view', '@fixture/hello', 'versions', '--json'], { env });
    expect(JSON.parse(stdout)).toEqual(['1.0.0', '1.1.0']);
    registry.tag('@fixture/hello', 'latest', '1.0.0');
    const latest = await run('npm', ['view', '@fixture/hello@latest', 'version'], { env });
    expect(latest.stdout.trim()).toBe('1.0.0');
  }, 120_000);
});
