/**
 * A distribution that serves several projects from one process (one kernel host per project,
 * one CLAT home) mounts the same WASM plugin once per project. The second project's mount takes
 * the core modules the first compiled for the same authenticated cache entry: it neither reads
 * nor hashes them again (figure 7c of `pnpm bench`). Each project still gets its own instance,
 * preopens and host context.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createWasmConnector, WASM_KIND, type WasmEntryConfig } from '@clat/adapter-wasm';
import { createHost, type Host, type MountEntry } from '@clat/kernel';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createWorld, GUESTS, removeSharedCache } from './harness.js';

// Importing the harness makes the shared cache directory, used here or not.
afterAll(removeSharedCache);

const worlds: ReturnType<typeof createWorld>[] = [];
const hosts: Host[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
  await Promise.all(worlds.splice(0).map((world) => world.dispose()));
});

const ENTRY: MountEntry<WasmEntryConfig> = {
  kind: WASM_KIND,
  name: 'wasm-summarize',
  origin: 'plugins.json',
  config: { manifest: GUESTS.summarizeManifest, config: { style: 'short' }, dirs: [] },
};
const PROJECT_INFO = 'wasm_wasm_summarize_project_info';

function world() {
  const created = createWorld();
  worlds.push(created);
  return created;
}

describe('one process serving two projects with the same WASM plugin', () => {
  it('mounts it in the second project from the modules the first compiled', async () => {
    const { clatHome } = world();
    const projects = [world().projectRoot, world().projectRoot];
    const hostFor = (projectRoot: string) => {
      const host = createHost({
        projectRoot,
        connectors: [
          createWasmConnector({ clatHome, grantsFile: join(clatHome, 'plugin-grants.json') }),
        ],
        entries: [ENTRY],
      });
      hosts.push(host);
      return host;
    };
    const projectInfo = async (host: Host) => {
      const run = await host.beginRun({ mode: 'read-only' });
      try {
        return (await host.pipeline.call(PROJECT_INFO, {}, run.context)).structured;
      } finally {
        await run.end();
      }
    };

    const first = hostFor(projects[0] as string);
    await first.mount.start();
    expect(first.mount.summary().servers[0]).toMatchObject({ state: 'connected', warnings: [] });
    // Its cache entry loses its core module: a mount that read it would rebuild the entry.
    const cacheDir = join(clatHome, 'cache', 'wasm');
    const [digest] = readdirSync(cacheDir).filter((name) => /^[0-9a-f]{64}$/.test(name));
    const coreModule = join(cacheDir, digest as string, 'plugin.core.wasm');
    rmSync(coreModule);

    const second = hostFor(projects[1] as string);
    await second.mount.start();
    expect(second.mount.summary().servers[0]).toMatchObject({ state: 'connected', warnings: [] });
    expect(readdirSync(join(cacheDir, digest as string))).not.toContain('plugin.core.wasm');
    // Two instances, each in its own project.
    expect(await projectInfo(second)).toMatchObject({ root: projects[1], mode: 'read-only' });
    expect(await projectInfo(first)).toMatchObject({ root: projects[0], mode: 'read-only' });
  });
});
