/**
 * Each host policy has one owner, and the WASM connector is not it (the sibling of
 * `adapter-mcp/src/policy-owners.test.ts`): the status is the host's `MountStatus` built from the
 * plugin's report as is, redaction is the host's redactor knowing exactly the sensitive config
 * values, and the plugin scope the host hands out owns the tool leases and their close order.
 * These fail if the WASM adapter grows its own status shape, redactor or lease list again.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createWasmConnector, WASM_KIND, type WasmEntryConfig } from '@clat/adapter-wasm';
import { createHost, type Host, type Lease, type MountEntry } from '@clat/kernel';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createWorld, GUESTS, removeSharedCache, SHARED_CACHE } from './harness.js';

afterAll(removeSharedCache);

/**
 * Values no key-shaped pattern catches: only the sensitive marking can redact them. One per entry,
 * since the host's one redactor redacts every value it knows from every plugin's texts.
 */
const SECRETS = { marked: 'zebra-umbrella-4471', packaged: 'walrus-lantern-9902' };
const MODEL = 'gpt-4o';
/** What the host's redactor prints in place of a secret. */
const REDACTED = '[REDACTED]';

const worlds: ReturnType<typeof createWorld>[] = [];
const hosts: Host[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
  await Promise.all(worlds.splice(0).map((world) => world.dispose()));
});

function entry(name: string, config: WasmEntryConfig): MountEntry<WasmEntryConfig> {
  return { kind: WASM_KIND, name, origin: 'plugins.json', config };
}

function hostWith(entries: MountEntry<WasmEntryConfig>[]): Host {
  const world = createWorld();
  worlds.push(world);
  const host = createHost({
    projectRoot: world.projectRoot,
    connectors: [
      createWasmConnector({
        clatHome: world.clatHome,
        grantsFile: join(world.clatHome, 'plugin-grants.json'),
        cacheDir: SHARED_CACHE,
      }),
    ],
    entries,
  });
  hosts.push(host);
  return host;
}

/** The faults guest as a manifest-backed package whose manifest marks `license` sensitive. */
function packageWithSensitiveLicense(): string {
  const world = createWorld();
  worlds.push(world);
  const dir = join(world.root, 'pkg');
  mkdirSync(join(dir, 'dist'), { recursive: true });
  copyFileSync(GUESTS.faults, join(dir, 'dist', 'faults.wasm'));
  writeFileSync(
    join(dir, 'clat-plugin.json'),
    JSON.stringify({
      manifestVersion: 1,
      id: 'packaged',
      name: 'Packaged faults',
      version: '1.0.0',
      runtime: {
        kind: 'wasm-component',
        entry: 'dist/faults.wasm',
        sha256: createHash('sha256').update(readFileSync(GUESTS.faults)).digest('hex'),
      },
      capabilities: { tools: true },
      userConfig: {
        license: { type: 'string', title: 'License', sensitive: true },
        model: { type: 'string', title: 'Model' },
        fail_start: { type: 'boolean', title: 'Fail at start' },
      },
    }),
  );
  return dir;
}

describe('policy owners around the WASM connector', () => {
  it('status: the host builds the one MountStatus from the plugin report, nothing reshaped', async () => {
    const host = hostWith([entry('faults', { path: GUESTS.faults, dirs: [] })]);
    await host.mount.start();
    const [status] = host.mount.summary().servers;
    expect(status).toEqual({
      name: 'faults',
      origin: 'plugins.json',
      transport: 'wasm',
      target: GUESTS.faults,
      state: 'connected',
      phase: undefined,
      protocolVersion: 'clat-wit/0.1.0',
      era: undefined,
      tools: 12,
      prompts: 0,
      systemPrompts: 0,
      durationMs: expect.any(Number),
      failure: undefined,
      stderrTail: [],
      logTail: [],
      warnings: [],
    });
  });

  it('redaction: the host redacts the sensitive config values the guest echoes, and only those', async () => {
    const config = (license: string) => ({ license, model: MODEL, fail_start: true });
    const host = hostWith([
      entry('marked', {
        path: GUESTS.faults,
        dirs: [],
        config: config(SECRETS.marked),
        sensitive: ['license'],
      }),
      entry('packaged', {
        manifest: packageWithSensitiveLicense(),
        dirs: [],
        config: config(SECRETS.packaged),
      }),
    ]);
    await host.mount.start();
    const summary = host.mount.summary();
    for (const status of summary.servers) {
      expect(status.state, status.name).toBe('failed');
      const echoed = status.stderrTail.find((line) => line.startsWith('starting with config'));
      expect(echoed, status.name).toBe(
        `starting with config {"license":"${REDACTED}","model":"${MODEL}","fail_start":true}`,
      );
    }
    const shown = JSON.stringify(summary);
    for (const secret of Object.values(SECRETS)) expect(shown).not.toContain(secret);
    expect(shown).toContain(MODEL);
  });

  it('frozen registry: a plugin that finishes after the freeze is reported by the host alone', async () => {
    const host = hostWith([entry('late', { path: GUESTS.faults, dirs: [] })]);
    host.start();
    // Freezes long before the component is compiled and started.
    await host.mount.freezeForFirstRun(1);
    await host.mount.start();
    const [late] = host.mount.summary().servers;
    expect(late).toMatchObject({
      state: 'failed',
      tools: 0,
      failure:
        'wasm plugin "late" finished mounting after the tool and prompt registries froze for the first run, so its registrations were revoked; restart CLAT after fixing or warming it',
    });
    // The host's own warning stays; no per-tool echo of the registry's refusal.
    expect(late?.warnings).toEqual([
      'still connecting when the registries froze after 1 ms; its tools will be rejected',
    ]);
    expect(host.registry.list().filter((tool) => tool.name.startsWith('wasm_'))).toEqual([]);
  });

  it('leases: closing the host revokes the WASM tool leases through the plugin scope, newest first', async () => {
    const host = hostWith([entry('faults', { path: GUESTS.faults, dirs: [] })]);
    const registered: string[] = [];
    const released: string[] = [];
    const register = host.registry.register.bind(host.registry);
    host.registry.register = (tool, scope): Lease => {
      const lease = register(tool, scope);
      const name = tool.definition.name;
      registered.push(name);
      const release = lease.release;
      Object.defineProperty(lease, 'release', {
        value: () => {
          if (!lease.released) released.push(name);
          return release();
        },
      });
      // Tools register on the plugin's own scope, never on the project scope.
      expect(scope.kind).toBe('plugin');
      expect(scope.name).toBe('faults');
      return lease;
    };
    await host.mount.start();
    expect(registered).toHaveLength(12);
    await host.close();
    expect(released).toEqual([...registered].reverse());
    expect(host.registry.list().filter((tool) => tool.name.startsWith('wasm_'))).toEqual([]);
  });
});
