/**
 * A deliberately misbehaving guest for the sandbox tests (test/wasm): it spins, allocates without
 * bound, traps, prints, and probes for ambient authority (environment, network, clock, random).
 * Built twice: `faults.wasm` (no http, loadable) and `faults-http.wasm` (keeps fetch, so it
 * imports wasi:http and the host must refuse it).
 * @module
 */
import {
  config,
  definePlugin,
  defineTool,
  elicitation,
  host,
  sampling,
} from '@clat/wasm-guest-sdk';

declare const console: { log(...args: unknown[]): void; error(...args: unknown[]): void };

const spin = defineTool({
  name: 'spin',
  description: 'Loops forever.',
  effect: 'pure',
  run() {
    for (;;) {
      // burn CPU until the host terminates the instance
    }
  },
});

const bomb = defineTool<{ chunkMiB?: number }>({
  name: 'bomb',
  description: 'Allocates memory until something stops it.',
  effect: 'pure',
  run({ chunkMiB }) {
    const hoard: Uint8Array[] = [];
    const size = (chunkMiB ?? 8) * 1024 * 1024;
    for (;;) {
      const chunk = new Uint8Array(size);
      chunk.fill(hoard.length & 0xff);
      hoard.push(chunk);
    }
  },
});

const trap = defineTool({
  name: 'trap',
  description: 'Exits the call with a non-string throw, which traps the instance.',
  effect: 'pure',
  run() {
    // definePlugin converts throws to strings, so bypass it: a recursion too deep for the stack.
    const recurse = (depth: number): number => recurse(depth + 1) + 1;
    return recurse(0);
  },
});

const echo = defineTool({
  name: 'echo',
  description: 'Returns its arguments and how many calls this instance has served.',
  effect: 'pure',
  run(args) {
    served++;
    return { args, served };
  },
});
let served = 0;

const log = defineTool<{ text: string }>({
  name: 'log',
  description: 'Writes to stdout and stderr.',
  effect: 'pure',
  run({ text }) {
    console.log(`stdout: ${text}`);
    console.error(`stderr: ${text}`);
    return 'logged';
  },
});

const probe = defineTool({
  name: 'probe',
  description: 'Reports what ambient authority the guest can see.',
  effect: 'read',
  run() {
    const g = globalThis as Record<string, unknown>;
    const report: Record<string, unknown> = {
      process: typeof g.process,
      require: typeof g.require,
      Deno: typeof g.Deno,
      now: Date.now(),
      random: [Math.random(), Math.random()],
    };
    const fetchFn = g.fetch as ((url: string) => unknown) | undefined;
    if (typeof fetchFn === 'function') {
      try {
        const pending = fetchFn('http://127.0.0.1:9/') as { then?: unknown };
        report.fetch = typeof pending?.then === 'function' ? 'returned a promise' : 'returned';
      } catch (error) {
        report.fetch = `threw: ${error instanceof Error ? error.message : String(error)}`;
      }
    } else {
      report.fetch = 'absent';
    }
    return report;
  },
});

const hostAll = defineTool<{ path?: string }>({
  name: 'host_all',
  description: 'Calls every host import once and reports each answer or refusal.',
  effect: 'read',
  run({ path }) {
    const attempt = (fn: () => unknown) => {
      try {
        return { ok: fn() };
      } catch (error) {
        return { err: error instanceof Error ? error.toString() : String(error) };
      }
    };
    return {
      context: attempt(() => host.context().project.root),
      readFile: attempt(() => host.callTool('read_file', { path: path ?? 'README.md' })),
      writeFile: attempt(() => host.callTool('write_file', { path: 'x.txt', content: 'x' })),
      sampling: attempt(
        () =>
          sampling.createMessage({ messages: [{ role: 'user', text: 'ping' }], maxTokens: 16 })
            .text,
      ),
      elicit: attempt(() =>
        elicitation.elicit({
          message: 'Pick one',
          fields: [{ name: 'color', kind: 'choice', options: ['red', 'blue'], required: true }],
        }),
      ),
      config: attempt(() => config.get() ?? null),
    };
  },
});

export const tools = definePlugin({ tools: [spin, bomb, trap, echo, log, probe, hostAll] });
