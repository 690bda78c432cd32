import { describe, expect, it } from 'vitest';
import { KernelErrorCode } from '../errors.js';
import type { UserAsker } from '../ports.js';
import type { Tool } from '../tool-registry.js';
import type { Connector } from './connector.js';
import { createHost } from './create-host.js';

const asker: UserAsker = { ask: async () => ({ kind: 'declined' }) };

function probeTool(name: string, source: Tool['definition']['source']): Tool {
  return {
    definition: {
      name,
      description: name,
      inputSchema: { type: 'object' },
      effect: 'read',
      source,
    },
    invoke: async (_args, ctx) => ({
      content: name,
      structured: { run: ctx.run.id, mode: ctx.run.mode, asker: ctx.run.asker === asker },
    }),
  };
}

describe('createHost', () => {
  it('mounts entries of any kind, hands tools their run, and closes idempotently', async () => {
    const seenConfig: unknown[] = [];
    const connector: Connector = {
      kind: 'custom',
      describe: (entry) => ({ transport: 'inproc', target: entry.name, secrets: ['s3cr3t-value'] }),
      async mount(entry, ctx) {
        seenConfig.push(entry.config);
        ctx.registry.register(
          probeTool('custom_probe', { kind: 'mcp', id: entry.name }),
          ctx.scope,
        );
        return { progress: { tools: 1, warnings: ['note s3cr3t-value'] } };
      },
    };
    const host = createHost({
      projectRoot: '/project',
      connectors: [connector],
      entries: [{ kind: 'custom', name: 'one', origin: 'test', config: { any: ['shape'] } }],
      nativeTools: [probeTool('read_file', { kind: 'native', id: '' })],
      asker,
    });
    host.start();
    const run = await host.beginRun({ mode: 'read-only' });
    expect(seenConfig).toEqual([{ any: ['shape'] }]);
    expect(host.registry.frozen).toBe(true);
    const result = await host.pipeline.call('custom_probe', {}, run.context);
    expect(result.structured).toEqual({ run: run.context.runId, mode: 'read-only', asker: true });
    const status = host.mount.summary().servers[0];
    expect(status).toMatchObject({ state: 'connected', transport: 'inproc', tools: 1 });
    expect(status?.warnings).toEqual(['note [REDACTED]']);
    await expect(host.beginRun({ mode: 'read-only' })).rejects.toMatchObject({
      code: KernelErrorCode.RUN_ALREADY_ACTIVE,
    });
    await run.end();
    await run.end();
    await Promise.all([host.close(), host.close()]);
    expect(host.registry.list()).toEqual([]);
  });

  it('a native tool wins over a plugin tool of the same name', async () => {
    const connector: Connector = {
      kind: 'custom',
      async mount(entry, ctx) {
        ctx.registry.register(probeTool('read_file', { kind: 'mcp', id: entry.name }), ctx.scope);
        return { progress: {} };
      },
    };
    const host = createHost({
      projectRoot: '/project',
      connectors: [connector],
      entries: [{ kind: 'custom', name: 'shadow', origin: 'test', config: null }],
      nativeTools: [probeTool('read_file', { kind: 'native', id: '' })],
    });
    host.start();
    const run = await host.beginRun({ mode: 'read-only' });
    expect(host.registry.list()[0]?.source.kind).toBe('native');
    expect(host.mount.summary().servers[0]?.state).toBe('failed');
    await run[Symbol.asyncDispose]();
    await host[Symbol.asyncDispose]();
  });

  it('a signal cancels the first run while it waits for the surface (nothing freezes), then the run itself', async () => {
    let connect: () => void = () => {};
    const connector: Connector = {
      kind: 'custom',
      async mount(entry, ctx) {
        await new Promise<void>((resolve) => {
          connect = resolve;
        });
        ctx.registry.register(probeTool('late_probe', { kind: 'mcp', id: entry.name }), ctx.scope);
        return { progress: { tools: 1 } };
      },
    };
    const host = createHost({
      projectRoot: '/project',
      connectors: [connector],
      entries: [{ kind: 'custom', name: 'late', origin: 'test', config: null }],
    });
    host.start();
    const waiting = new AbortController();
    const first = host.beginRun({ mode: 'read-only', signal: waiting.signal });
    waiting.abort('cancelled by Esc');
    await expect(first).rejects.toMatchObject({
      code: KernelErrorCode.CANCELLED,
      message: 'the wait for plugins to connect was cancelled: cancelled by Esc',
    });
    expect(host.registry.frozen).toBe(false);

    // The server connects after all: the next run sees its tool; its signal cancels the run.
    connect();
    const later = new AbortController();
    const run = await host.beginRun({ mode: 'read-only', signal: later.signal });
    expect(host.registry.list().map((tool) => tool.name)).toEqual(['late_probe']);
    expect(run.token.cancelled).toBe(false);
    later.abort('cancelled by Ctrl-C');
    expect(run.token.cancelled).toBe(true);
    await run.end();
    await host.close();
  });

  it('ending a run stops its calls and refuses its context; close ends an open run; a bad mode is named', async () => {
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const slow: Tool = {
      ...probeTool('slow', { kind: 'native', id: '' }),
      // Runs until its signal aborts.
      invoke: (_args, ctx) =>
        new Promise((_resolve, reject) => {
          started();
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason));
        }),
    };
    const thrown: unknown[] = [];
    const host = createHost({
      projectRoot: '/project',
      connectors: [],
      nativeTools: [slow],
      onListenerError: (error) => thrown.push(error),
    });
    const seen: string[] = [];
    host.events.on((event) => {
      seen.push(`${event.runId} ${event.type}`);
      if (event.type === 'run.started') throw new Error('listener bug');
    });
    host.start();
    await expect(host.beginRun({ mode: 'readonly' as never })).rejects.toMatchObject({
      code: KernelErrorCode.CONFIG_INVALID,
      message: 'permission mode "readonly" is not one of read-only, project-write, full-access',
    });
    const run = await host.beginRun({ mode: 'read-only' });
    expect(thrown).toEqual([new Error('listener bug')]);
    const call = host.pipeline.call('slow', {}, run.context);
    await running;
    await run.end();
    await expect(call).rejects.toMatchObject({
      code: KernelErrorCode.CANCELLED,
      message: expect.stringContaining('the run ended'),
    });
    await expect(host.pipeline.call('slow', {}, run.context)).rejects.toMatchObject({
      code: KernelErrorCode.CANCELLED,
    });
    // One start and one end for the run, whatever its stopped call emitted after.
    const id = run.context.runId;
    expect(seen.filter((line) => line.startsWith(`${id} run.`))).toEqual([
      `${id} run.started`,
      `${id} run.ended`,
    ]);

    const open = await host.beginRun({ mode: 'read-only' });
    await host.close();
    expect(seen.at(-1)).toBe(`${open.context.runId} run.ended`);
  });

  it('refuses two entries of one name before anything starts, whatever their kinds', () => {
    let connects = 0;
    const connector: Connector = {
      kind: 'custom',
      describe: () => ({ secrets: [] }),
      connect: async () => {
        connects++;
        return { tools: [], close: async () => {} };
      },
    } as unknown as Connector;
    expect(() =>
      createHost({
        projectRoot: '/p',
        connectors: [connector],
        entries: [
          { kind: 'custom', name: 'docs', origin: 'test', config: null },
          { kind: 'other', name: 'docs', origin: 'test', config: null },
        ],
      }),
    ).toThrow(
      expect.objectContaining({
        code: KernelErrorCode.CONFIG_INVALID,
        message:
          'two mount entries are named "docs" (custom and other); entries are found by name, so give each its own (collectMountSources keeps the first of a name and notes the others)',
      }),
    );
    expect(connects).toBe(0);
  });
});
