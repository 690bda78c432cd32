import { describe, expect, it } from 'vitest';
import { LIMITS } from '../limits.js';
import { PromptRegistry } from '../prompt-registry.js';
import { Redactor } from '../redact.js';
import { createGlobalScope } from '../scope.js';
import { ToolRegistry } from '../tool-registry.js';
import type { PluginCatalog } from './catalog.js';
import { type Connector, type MountEntry, MountError } from './connector.js';
import { PluginMount } from './plugin-mount.js';

const hostServices = {} as never;
const SECRET = 'abcdefgh12345678';

const entry = (name: string, kind = 'fake'): MountEntry => ({
  kind,
  name,
  origin: 'user',
  config: { cmd: `run ${name}` },
});

const tool = (name: string) => ({
  definition: {
    name,
    description: name,
    inputSchema: { type: 'object' },
    effect: 'read' as const,
    source: { kind: 'mcp' as const, id: name },
  },
  invoke: async () => ({ content: name }),
});

function mountWith(connectors: Connector[], entries: MountEntry[], displayName?: string) {
  const scope = createGlobalScope().child('/project');
  const redactor = new Redactor();
  redactor.add(SECRET);
  const registry = new ToolRegistry();
  const prompts = new PromptRegistry();
  const mount = new PluginMount({
    entries,
    connectors,
    registry,
    prompts,
    scope,
    hostServices,
    projectRoot: '/project',
    redactor,
    ...(displayName === undefined ? {} : { displayName }),
    staticPrompts: [
      { name: 'pkg_good', source: { kind: 'package', id: 'good' }, text: 'be good' },
      { name: 'pkg_bad', source: { kind: 'package', id: 'bad' }, text: 'never shown' },
    ],
  });
  return { mount, scope, registry, prompts };
}

describe('PluginMount', () => {
  it('isolates failures per entry, redacts what it reports and keeps prompts with their plugin', async () => {
    const connector: Connector = {
      kind: 'fake',
      describe: (e) => ({ transport: 'stdio', target: `${(e.config as { cmd: string }).cmd}` }),
      async mount(e, ctx) {
        if (e.name === 'bad') {
          throw new MountError(`spawn failed: token=${SECRET}`, [`line with Bearer ${SECRET}`]);
        }
        ctx.onProgress({ protocolVersion: '2025-06-18', era: 'legacy', tools: 3 });
        return { progress: { tools: 3 } };
      },
    };
    const { mount, scope, prompts } = mountWith(
      [connector],
      [entry('good'), entry('bad'), entry('remote', 'other')],
    );
    await mount.start();
    const summary = mount.summary();
    expect(summary).toMatchObject({ configured: 3, connecting: 0, connected: 1, failed: 2 });
    const [good, bad, remote] = summary.servers;
    expect(good).toMatchObject({
      state: 'connected',
      transport: 'stdio',
      target: 'run good',
      tools: 3,
      prompts: 0,
      systemPrompts: 1,
      protocolVersion: '2025-06-18',
    });
    expect(bad?.failure).toBe('spawn failed: token=[REDACTED]');
    expect(bad?.stderrTail).toEqual(['line with Bearer [REDACTED]']);
    expect(remote).toMatchObject({ transport: 'other', state: 'failed' });
    expect(remote?.failure).toBe('no connector for other entries is wired into this build');
    expect(prompts.list().map((p) => p.name)).toEqual(['pkg_good']);
    await scope.close();
    expect(prompts.list()).toEqual([]);
  });

  it('redacts and bounds the log tail a plugin reports, and reads the live one', async () => {
    const logged = (n: number) => ({
      level: 'error',
      logger: `db ${SECRET}`,
      text: `n=${n} ${SECRET}`,
    });
    let live = [logged(0)];
    const connector: Connector = {
      kind: 'fake',
      async mount(_e, ctx) {
        ctx.onProgress({ logTail: Array.from({ length: 30 }, (_, n) => logged(n)) });
        return { progress: {}, current: () => ({ logTail: live }) };
      },
    };
    const { mount } = mountWith([connector], [entry('logs')]);
    expect(mount.summary().servers[0]?.logTail).toEqual([]);
    await mount.start();
    const entries = mount.summary().servers[0]?.logTail;
    expect(entries).toEqual([{ level: 'error', logger: 'db [REDACTED]', text: 'n=0 [REDACTED]' }]);
    live = Array.from({ length: 30 }, (_, n) => logged(n));
    const tail = mount.summary().servers[0]?.logTail ?? [];
    expect(tail).toHaveLength(LIMITS.logTailEntries);
    expect(tail.at(-1)?.text).toBe('n=29 [REDACTED]');
  });

  it('shows the transport a connector reports in use instead of the described one', async () => {
    const connector: Connector = {
      kind: 'fake',
      describe: () => ({ transport: 'http', target: 'http://127.0.0.1:1/sse' }),
      async mount(_e, ctx) {
        ctx.onProgress({ era: 'legacy', transport: 'sse' });
        return { progress: {} };
      },
    };
    const { mount } = mountWith([connector], [entry('old'), entry('new')]);
    expect(mount.summary().servers[0]?.transport).toBe('http');
    await mount.start();
    expect(mount.summary().servers[0]).toMatchObject({ transport: 'sse', state: 'connected' });
  });

  it('gives each plugin its own scope: leases and hooks close with it, LIFO, once', async () => {
    const order: string[] = [];
    const connector: Connector = {
      kind: 'fake',
      async mount(e, ctx) {
        expect(ctx.scope.kind).toBe('plugin');
        ctx.scope.onClose(() => {
          order.push(`close ${e.name}`);
        });
        ctx.registry.register(tool(`t_${e.name}`), ctx.scope);
        ctx.scope.lease(e.name, () => {
          order.push(`lease ${e.name}`);
        });
        return { progress: {} };
      },
    };
    const { mount, scope, registry } = mountWith([connector], [entry('a'), entry('b')]);
    await mount.start();
    expect(registry.list().map((t) => t.name)).toEqual(['t_a', 't_b']);
    await Promise.all([scope.close(), scope.close()]);
    expect(registry.list()).toEqual([]);
    expect(order.filter((step) => step.endsWith(' a'))).toEqual(['lease a', 'close a']);
    expect(order.filter((step) => step.endsWith(' b'))).toEqual(['lease b', 'close b']);
  });

  it('freezes for the first run, then rejects and reports a late finisher and closes its scope', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let lateClosed = false;
    const connector: Connector = {
      kind: 'fake',
      async mount(e, ctx) {
        if (e.name === 'slow') {
          ctx.scope.onClose(() => {
            lateClosed = true;
          });
          await gate;
          // A report after the freeze keeps the host's own warning next to the plugin's.
          ctx.onProgress({ warnings: ['a note of its own'] });
        }
        return { progress: { tools: 1 } };
      },
    };
    const { mount, scope, registry } = mountWith([connector], [entry('fast'), entry('slow')]);
    mount.start();
    await mount.freezeForFirstRun(50);
    expect(registry.frozen).toBe(true);
    expect(mount.summary().servers[1]?.warnings[0]).toContain('still connecting');
    release();
    await mount.start();
    const slow = mount.summary().servers[1];
    expect(slow?.state).toBe('failed');
    expect(slow?.failure).toContain('froze for the first run');
    expect(slow?.warnings).toEqual([
      'still connecting when the registries froze after 50 ms; its tools will be rejected',
      'a note of its own',
    ]);
    expect(lateClosed).toBe(true);
    await scope.close();
  });

  it('words a registration the frozen registry refused in the same one sentence, naming the plugin', async () => {
    let gateOpen!: () => void;
    const gate = new Promise<void>((resolve) => {
      gateOpen = resolve;
    });
    const connector: Connector = {
      kind: 'fake',
      async mount(e, ctx) {
        ctx.registry.register(tool(`early_${e.name}`), ctx.scope);
        await gate;
        // The connector does not check the freeze: the registry throws, the host reports.
        ctx.registry.register(tool(`late_${e.name}`), ctx.scope);
        return { progress: {} };
      },
    };
    const { mount, scope, registry } = mountWith([connector], [entry('mid')]);
    mount.start();
    await mount.freezeForFirstRun(20);
    gateOpen();
    await mount.start();
    const mid = mount.summary().servers[0];
    expect(mid?.state).toBe('failed');
    expect(mid?.failure).toBe(
      'fake plugin "mid" finished mounting after the tool and prompt registries froze for the first run, so its registrations were revoked; restart CLAT after fixing or warming it',
    );
    // Its partial registration went with its scope.
    expect(registry.list()).toEqual([]);
    await scope.close();
  });

  it('names a distribution in its restart advice, and hands connectors that name', async () => {
    let gateOpen!: () => void;
    const gate = new Promise<void>((resolve) => {
      gateOpen = resolve;
    });
    const names: (string | undefined)[] = [];
    const connector: Connector = {
      kind: 'fake',
      async mount(_e, ctx) {
        names.push(ctx.hostName);
        await gate;
        return { progress: {} };
      },
    };
    const { mount, scope } = mountWith([connector], [entry('slow')], 'acme-agent');
    mount.start();
    await mount.freezeForFirstRun(20);
    gateOpen();
    await mount.start();
    expect(names).toEqual(['acme-agent']);
    expect(mount.summary().servers[0]?.failure).toBe(
      'fake plugin "slow" finished mounting after the tool and prompt registries froze for the first run, so its registrations were revoked; restart acme-agent after fixing or warming it',
    );
    await scope.close();
  });

  it('hands connectors a signal that aborts when the project closes mid-mount', async () => {
    let seen: AbortSignal | undefined;
    const connector: Connector = {
      kind: 'fake',
      mount: (_e, ctx) =>
        new Promise((_resolve, reject) => {
          seen = ctx.signal;
          ctx.signal.addEventListener('abort', () => reject(new Error('aborted')));
        }),
    };
    const { mount, scope } = mountWith([connector], [entry('hang')]);
    const settled = mount.start();
    await new Promise((resolve) => setTimeout(resolve, 10));
    await scope.close();
    await settled;
    expect(seen?.aborted).toBe(true);
    expect(mount.summary().servers[0]?.state).toBe('failed');
  });

  it('hands out the catalog of connected plugins only, and drops it when the connection fails', async () => {
    const catalog: PluginCatalog = {
      prompts: true,
      resources: false,
      listPrompts: async () => [{ name: 'hello', arguments: [] }],
      renderPrompt: async () => ({ messages: [] }),
      listResources: async () => [],
      listResourceTemplates: async () => [],
      readResource: async () => ({ contents: [], bytes: 0 }),
    };
    let failure: string | undefined;
    const connector: Connector = {
      kind: 'fake',
      async mount(e) {
        if (e.name === 'bad') throw new MountError('spawn failed');
        if (e.name === 'plain') return { progress: {} };
        return { progress: {}, current: () => ({ failure }), catalog };
      },
    };
    const { mount, scope } = mountWith(
      [connector],
      [entry('good'), entry('bad'), entry('plain'), entry('other', 'unknown')],
    );
    expect(mount.catalog('good')).toBeUndefined();
    await mount.start();
    expect(mount.catalog('good')).toBe(catalog);
    expect(await mount.catalog('good')?.listPrompts()).toEqual([{ name: 'hello', arguments: [] }]);
    for (const name of ['bad', 'plain', 'other', 'missing']) {
      expect(mount.catalog(name)).toBeUndefined();
    }
    expect(mount.catalogNames()).toEqual(['good']);
    failure = 'connection lost';
    expect(mount.catalog('good')).toBeUndefined();
    expect(mount.catalogNames()).toEqual([]);
    await scope.close();
  });

  it('remounts a plugin that waited for a login before the first run, and never after the freeze', async () => {
    let loggedIn = false;
    let mounts = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const connector: Connector = {
      kind: 'fake',
      async mount(e, ctx) {
        mounts++;
        if (e.name === 'remote' && !loggedIn) {
          ctx.onProgress({
            protocolVersion: '2025-06-18',
            transport: 'sse',
            tasks: 'supported',
            warnings: ['401 from the server'],
          });
          throw new MountError('needs login: run `login remote`', [], undefined, 'login remote');
        }
        if (e.name === 'remote') await gate;
        ctx.registry.register(tool(`t_${e.name}`), ctx.scope);
        ctx.onProgress({ tools: 1 });
        return { progress: { tools: 1 } };
      },
    };
    const { mount, scope, registry } = mountWith([connector], [entry('local'), entry('remote')]);
    await mount.start();
    expect(mount.summary().servers[1]).toMatchObject({
      state: 'needs-login',
      login: 'login remote',
    });

    // Connected plugins and unknown names are left as they are.
    expect(await mount.remount('missing')).toBeUndefined();
    expect(await mount.remount('local')).toMatchObject({ state: 'connected', tools: 1 });
    expect(mounts).toBe(2);

    loggedIn = true;
    const remounting = mount.remount('remote');
    // Nothing the failed attempt reported carries over.
    expect(mount.summary().servers[1]).toMatchObject({
      state: 'connecting',
      transport: 'fake',
      warnings: [],
    });
    for (const field of ['login', 'protocolVersion', 'tasks'] as const) {
      expect(mount.summary().servers[1]?.[field]).toBeUndefined();
    }
    // The first run waits for a remount in flight as for the initial surface.
    let frozen = false;
    const firstRun = mount.freezeForFirstRun(5_000).then(() => {
      frozen = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(frozen).toBe(false);
    release();
    expect(await remounting).toMatchObject({ state: 'connected', tools: 1, failure: undefined });
    await firstRun;
    expect(registry.list().map((t) => t.name)).toEqual(['t_local', 't_remote']);

    // After the freeze the registries do not thaw: a remount changes nothing.
    const { mount: late, scope: lateScope } = mountWith([connector], [entry('remote')]);
    loggedIn = false;
    await late.start();
    await late.freezeForFirstRun(0);
    loggedIn = true;
    const before = mounts;
    expect(await late.remount('remote')).toMatchObject({ state: 'needs-login' });
    expect(mounts).toBe(before);
    await lateScope.close();
    await scope.close();
  });
});
