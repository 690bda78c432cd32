import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { componentEmbed, componentNew, parse } from '@bytecodealliance/jco-transpile/wasm-tools';
import { prepareComponent } from '../component-cache.js';

const here = import.meta.dirname;

/** The kernel's WIT contract, the one source of truth for guests. */
export async function pluginWit(): Promise<string> {
  return readFile(join(here, '..', '..', '..', 'kernel', 'wit', 'plugin.wit'), 'utf8');
}

/** Builds a component from WebAssembly text: parse, embed the WIT world, componentize. */
export async function buildWatComponent(
  wat: string,
  witSource: string,
  world = 'plugin',
): Promise<Uint8Array> {
  const core = await parse(wat);
  const embedded = await componentEmbed({ binary: core, witSource, world, stringEncoding: 'utf8' });
  return componentNew(embedded);
}

/** The hand-written fixture guest (plugin.wat) as a component. */
export async function buildFixtureComponent(): Promise<Uint8Array> {
  return buildWatComponent(await readFile(join(here, 'plugin.wat'), 'utf8'), await pluginWit());
}

/** The jco glue our transpiler makes of the fixture guest (prepared in a directory then removed). */
export async function fixtureGlueSource(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'clat-glue-'));
  try {
    const componentPath = join(dir, 'plugin.wasm');
    writeFileSync(componentPath, await buildFixtureComponent());
    const { glueSource } = await prepareComponent({ componentPath, cacheDir: join(dir, 'cache') });
    return glueSource;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
