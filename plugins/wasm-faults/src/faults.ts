/**
 * A deliberately misbehaving guest for the sandbox tests (test/wasm): it spins, allocates without
 * bound, traps, prints, probes for ambient authority (environment, network, clock, random), and
 * with `{ "fail_start": true }` in its config echoes that config to stderr and fails to start.
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
  description: 'Throws a non-string out of the export, which traps the instance.',
  effect: 'pure',
  run() {
    return 'unreachable: the export wrapper below throws before this runs';
  },
});

const overflow = defineTool({
  name: 'overflow',
  description: 'Recurses until the engine stops it (a JS error, not a trap).',
  effect: 'pure',
  run() {
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
    report.fetch = typeof g.fetch;
    return report;
  },
});

const fetchProbe = defineTool<{ url: string }>({
  name: 'fetch',
  description: 'Tries to reach a URL with fetch().',
  effect: 'network',
  run({ url }) {
    const fetchFn = (globalThis as Record<string, unknown>).fetch as (url: string) => unknown;
    fetchFn(url);
    return 'fetch returned';
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

const contextLoop = defineTool({
  name: 'context_loop',
  description:
    'Calls host.context() forever: time in cheap host calls must count against the budget.',
  effect: 'read',
  run() {
    for (;;) host.context();
  },
});

const sample = defineTool<{ text?: string }>({
  name: 'sample',
  description: 'Asks the host for one sampling completion and returns its text.',
  effect: 'read',
  run({ text }) {
    return sampling.createMessage({
      messages: [{ role: 'user', text: text ?? 'ping' }],
      maxTokens: 16,
    }).text;
  },
});

const deep = defineTool<{ depth?: number }>({
  name: 'deep',
  description: 'Returns a JSON array nested `depth` levels deep (default 100,000).',
  effect: 'pure',
  run() {
    return 'see tools.call below';
  },
});

function nestedFrom(argsJson: string): string {
  const depth = (JSON.parse(argsJson || '{}') as { depth?: number }).depth;
  return nested(depth ?? 100_000);
}

/** The raw ok payload (not a JSON string of it), built as text so the guest does not recurse. */
function nested(levels: number): string {
  return `${'['.repeat(levels)}${']'.repeat(levels)}`;
}

const plugin = definePlugin({
  tools: [
    spin,
    bomb,
    trap,
    overflow,
    echo,
    log,
    probe,
    fetchProbe,
    hostAll,
    contextLoop,
    sample,
    deep,
  ],
});

/** The config keys this guest reads; `fail_start: true` makes it fail at start. */
interface FaultsConfig {
  fail_start?: boolean;
}

export const tools = {
  listTools() {
    // A careless plugin: it prints its whole config (secrets included) and refuses to start, so
    // the host's status must redact what it echoes.
    const settings = config.get<FaultsConfig>();
    if (settings?.fail_start === true) {
      const text = JSON.stringify(settings);
      console.error(`starting with config ${text}`);
      throw new Error(`refusing to start with config ${text}`);
    }
    return plugin.listTools();
  },
  call(name: string, argsJson: string): string {
    // Bypasses definePlugin's string conversion: only strings may leave an export as err(..).
    if (name === 'trap') throw new TypeError('a non-string thrown out of the export');
    // The payload itself is the nested JSON, as a hostile guest would send it.
    if (name === 'deep') {
      try {
        return nestedFrom(argsJson);
      } catch {
        throw 'arguments of deep are not valid JSON';
      }
    }
    return plugin.call(name, argsJson);
  },
};
