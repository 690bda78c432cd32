import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { componentEmbed, componentNew, parse } from '@bytecodealliance/jco-transpile/wasm-tools';

const require = createRequire(import.meta.url);
const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'wasm');

/** WIT of the clat:plugin contract (as shipped by the guest SDK) plus the WASI slices probes use. */
async function probeWit(): Promise<string> {
  const plugin = await readFile(require.resolve('@clat/wasm-guest-sdk/wit/plugin.wit'), 'utf8');
  const wasi = await readFile(join(FIXTURES, 'wasi-subset.wit'), 'utf8');
  // One source: the contract package becomes a nested package next to the WASI slices.
  const nested = plugin.replace(
    /^package clat:plugin@0\.1\.0;\s*$/m,
    'package clat:plugin@0.1.0 {',
  );
  return `${wasi}\n${nested}\n}\n`;
}

/** Builds test/fixtures/wasm/<name>.wat, written in component text format, at `out`. */
export async function buildComponentWat(name: 'multi-memory', out: string): Promise<string> {
  await writeFile(out, await parse(await readFile(join(FIXTURES, `${name}.wat`), 'utf8')));
  return out;
}

/** Builds test/fixtures/wasm/<name>.wat into a component at `out`: parse, embed WIT, componentize. */
export async function buildProbe(
  name: 'fs-probe' | 'fs-escape' | 'net-probe' | 'schema-probe',
  out: string,
): Promise<string> {
  const core = await parse(await readFile(join(FIXTURES, `${name}.wat`), 'utf8'));
  const embedded = await componentEmbed({
    binary: core,
    witSource: await probeWit(),
    world: `clat:probes/${name}@0.1.0`,
    stringEncoding: 'utf8',
  });
  await writeFile(out, await componentNew(embedded));
  return out;
}
