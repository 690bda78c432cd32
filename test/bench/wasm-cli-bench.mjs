/**
 * Figures 7f/7g/7h of `pnpm bench`: what one WASM plugin adds to a whole `clat` process. 7f: `clat
 * tools` whose plugin's tool list is remembered from an earlier start, so no guest starts; 7g:
 * it is not (removed before each run), so the guest starts at mount, lists its tools and the
 * list is written, as on a plugin's first start (floor of both: `clat tools` with no plugin).
 * 7h: `clat call` of one of its tools, whose guest starts at the call (floor: `clat call` of a
 * native tool).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { clatHomeWith, interleaved, median, NODE, now } from './lib.mjs';

const require = createRequire(import.meta.url);
const TOOL = 'wasm_wasm_summarize_word_count';

/**
 * The timed runs, by id: the home each runs in, its arguments, and the text its output must hold
 * (`shows`) or, for the floor with no plugin, must not (`lacks`).
 */
const RUNS = {
  remembered: { home: 'remembered', args: ['tools'], shows: TOOL },
  started: { home: 'started', args: ['tools'], shows: TOOL },
  floor: { home: 'floor', args: ['tools'], lacks: TOOL },
  'call-wasm': { home: 'remembered', args: ['call', TOOL, 'text=one two'], shows: '"words":2' },
  'call-native': { home: 'floor', args: ['call', 'list_files'], shows: '"entries"' },
};

/** Removes every remembered tool list of the homes' WASM cache. */
function forgetToolLists(home) {
  const cache = join(home, 'cache', 'wasm');
  if (!existsSync(cache)) return;
  for (const entry of readdirSync(cache)) rmSync(join(cache, entry, 'tools.json'), { force: true });
}

export function runWasmCliBench({ quick, clatBin }) {
  let manifest;
  try {
    manifest = require.resolve('@clat-examples/wasm-summarize/clat-plugin.json');
  } catch {
    return { skipped: 'the wasm-summarize example is not built' };
  }
  const homes = {
    remembered: clatHomeWith([]),
    started: clatHomeWith([]),
    floor: clatHomeWith([]),
  };
  for (const id of ['remembered', 'started']) {
    writeFileSync(
      join(homes[id].home, 'plugins.json'),
      JSON.stringify({ 'wasm-summarize': { manifest } }),
    );
  }
  /** One whole `clat` process: the run `id` of RUNS. */
  const time = (id) => {
    const { home, args, shows, lacks } = RUNS[id];
    const { project, env } = homes[home];
    if (id === 'started') forgetToolLists(homes[home].home);
    const t0 = now();
    const result = spawnSync(NODE, [clatBin, ...args], {
      cwd: project,
      env: { ...env, NO_COLOR: '1' },
      encoding: 'utf8',
      timeout: 60_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const elapsed = now() - t0;
    const holds =
      shows === undefined ? !result.stdout.includes(lacks) : result.stdout.includes(shows);
    if (result.status !== 0 || !holds) {
      throw new Error(`clat ${args[0]} (${id}) exited ${result.status}: ${result.stderr.trim()}`);
    }
    return elapsed;
  };
  try {
    for (const { project, env } of Object.values(homes)) {
      const trust = spawnSync(NODE, [clatBin, 'trust'], { cwd: project, env, encoding: 'utf8' });
      if (trust.status !== 0) throw new Error(`clat trust failed: ${trust.stderr}`);
    }
    const ids = Object.keys(RUNS);
    // Not timed: the transpile of the component, the code caches and the first tool list.
    for (const id of ids) time(id);
    const samples = Object.fromEntries(ids.map((id) => [id, []]));
    for (let round = 0; round < (quick ? 2 : 9); round++) {
      for (const id of interleaved(round, ids)) samples[id].push(time(id));
    }
    const floor = median(samples.floor);
    const ms = (value) => `${value.toFixed(1)} ms`;
    return {
      figures: [
        {
          id: '7f',
          name: '`clat tools` with one WASM plugin, whole process, its tool list remembered (floor: `clat tools` with no plugin)',
          values: { clat: median(samples.remembered), floor },
          format: ms,
          raw: { clat: samples.remembered, floor: samples.floor },
          note: 'the wasm-summarize example (12 MB componentize-js guest); its guest starts at its first call, not here',
        },
        {
          id: '7g',
          name: '`clat tools` with one WASM plugin, whole process, its tool list not remembered: the guest starts at mount (floor: `clat tools` with no plugin)',
          values: { clat: median(samples.started), floor },
          format: ms,
          raw: { clat: samples.started, floor: samples.floor },
          note: 'tools.json removed before each run; same rounds as 7f',
        },
        {
          id: '7h',
          name: '`clat call` of a WASM tool, whole process: its guest starts at the call (floor: `clat call` of a native tool)',
          values: { clat: median(samples['call-wasm']), floor: median(samples['call-native']) },
          format: ms,
          raw: { clat: samples['call-wasm'], floor: samples['call-native'] },
          note: "wasm-summarize's word_count; its tool list remembered; same rounds as 7f",
        },
      ],
    };
  } finally {
    for (const home of Object.values(homes)) home.cleanup();
  }
}
