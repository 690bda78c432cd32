/**
 * A world for npm journeys through the `clat` binary, network-free: a temp directory with a
 * CLAT home and a trusted project, and an npm whose only registry is the local fixture (its own
 * npmrc and an empty cache, as on a new machine). Tests publish what they need into `registry`.
 * @module
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ClatExit, execClat } from './clat-bin.js';
import { type NpmRegistryFixture, startNpmRegistry } from './npm-registry.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface NpmWorld {
  work: string;
  home: string;
  project: string;
  registry: NpmRegistryFixture;
  /** HOME and the npm settings that point at the fixture; what `clat` and its servers run with. */
  env: Record<string, string>;
  /** Runs `clat <args>` in the project with this world's home and environment. */
  clat(...args: string[]): Promise<ClatExit>;
  close(): Promise<void>;
}

/** Opens the world (the project is trusted); `prefix` names its temp directory. */
export async function openNpmWorld(prefix: string, timeoutMs = 180_000): Promise<NpmWorld> {
  if (!existsSync(join(REPO_ROOT, 'apps/clat/dist/main.js'))) {
    throw new Error('apps/clat/dist is missing; run "pnpm build" before the e2e tests');
  }
  const work = await mkdtemp(join(tmpdir(), prefix));
  const home = join(work, 'home');
  const project = join(work, 'project');
  await mkdir(project, { recursive: true });
  const registry = await startNpmRegistry();
  const env = { HOME: work, ...registry.npmEnv(join(work, 'npm')) };
  const clat = (...args: string[]) => execClat(args, { cwd: project, home, env, timeoutMs });
  const trusted = await clat('trust');
  if (trusted.code !== 0) throw new Error(`clat trust failed: ${trusted.stderr}`);
  return {
    work,
    home,
    project,
    registry,
    env,
    clat,
    async close() {
      await registry.close();
      // npm writes read-only files into its cache; make everything removable first.
      execFileSync('chmod', ['-R', 'u+rwX', work]);
      await rm(work, { recursive: true, force: true });
    },
  };
}
