// The createHost example of packages/kernel/README.md, run as written (keep the two in step).
import { describe, expect, it } from 'vitest';
import { type Connector, createHost, type MountEntry, type Tool } from '../index.js';

describe('README example', () => {
  it('composes a host with a custom connector and calls its tool through the pipeline', async () => {
    // README:begin
    // A connector for a kind of your own: `config` is opaque to the kernel.
    const echoConnector: Connector<{ prefix: string }> = {
      kind: 'echo',
      describe: (entry) => ({ transport: 'in-process', target: entry.name }),
      async mount(entry, ctx) {
        const tool: Tool = {
          definition: {
            name: `echo_${entry.name}`,
            description: 'Echoes its text',
            inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
            effect: 'pure',
            source: { kind: 'echo', id: entry.name },
          },
          invoke: async (args) => ({ content: `${entry.config.prefix}${String(args.text)}` }),
        };
        ctx.registry.register(tool, ctx.scope); // revoked when the plugin's scope closes
        return { progress: { tools: 1 } };
      },
    };

    const entry: MountEntry<{ prefix: string }> = {
      kind: 'echo',
      name: 'demo',
      origin: 'example',
      config: { prefix: '> ' },
    };
    const host = createHost({
      projectRoot: '/srv/project',
      connectors: [echoConnector],
      entries: [entry],
    });
    const seen: string[] = [];
    host.events.on((event) => seen.push(event.type)); // run.started, tool.requested, …
    let result: Awaited<ReturnType<typeof host.pipeline.call>>;
    let cancelled: unknown;
    try {
      host.start(); // mounts in the background
      const run = await host.beginRun({ mode: 'read-only' }); // waits, then freezes
      try {
        result = await host.pipeline.call('echo_demo', { text: 'hi' }, run.context); // '> hi'
        // One call cancelled on its own (a person's Esc): a signal of its own beside the run's.
        const one = new AbortController();
        const signal = AbortSignal.any([run.context.signal, one.signal]);
        one.abort();
        cancelled = await host.pipeline
          .call('echo_demo', { text: 'no' }, { ...run.context, signal })
          .catch((error: unknown) => error); // KernelError CANCELLED: tool echo_demo was cancelled
      } finally {
        await run.end(); // cancels what still runs, and every call of a context derived from it
      }
    } finally {
      await host.close();
    }
    // result.content === '> hi'
    // README:end
    expect(result.content).toBe('> hi');
    expect(cancelled).toMatchObject({ code: 'CANCELLED' });
    expect(seen).toEqual(
      expect.arrayContaining(['run.started', 'tool.requested', 'tool.finished']),
    );
    expect(seen).toContain('run.ended');
  });
});
