import { access, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGuest, GuestBuildError } from './build.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clat-guest-build-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('buildGuest', () => {
  it('reports a guest that does not compile as a build error with the compiler message', async () => {
    const entry = join(dir, 'broken.ts');
    await writeFile(entry, 'export const tools = {\n  call( {\n};\n');
    const failure = await buildGuest({ entry, outFile: join(dir, 'out.wasm') }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(GuestBuildError);
    expect(failure).toMatchObject({ code: 'GUEST_BUILD_FAILED' });
    expect((failure as Error).message).toMatch(
      new RegExp(`^bundling ${entry} failed: broken\\.ts:3:2: Expected "\\)" but found ";"$`),
    );
  });

  it('names a manifest that is no JSON before building, and leaves the last build as it was', async () => {
    // A guest that does not even bundle: the manifest's error comes first, so it was read before
    // esbuild and componentize-js ran.
    const entry = join(dir, 'unbundled.js');
    await writeFile(entry, 'export const tools = {\n');
    const manifest = join(dir, 'clat-plugin.json');
    await writeFile(manifest, '{ "id": "fine", }\n');
    const out = join(dir, 'dist');
    await mkdir(out, { recursive: true });
    await writeFile(join(out, 'plugin.wasm'), 'last build');
    await writeFile(join(out, 'clat-plugin.json'), '{"last":"build"}');
    const failure = await buildGuest({ entry, outFile: join(out, 'plugin.wasm'), manifest }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(GuestBuildError);
    expect((failure as Error).message).toMatch(
      new RegExp(`^the manifest ${manifest} cannot be read as JSON: `),
    );
    expect(await readFile(join(out, 'plugin.wasm'), 'utf8')).toBe('last build');
    expect(await readFile(join(out, 'clat-plugin.json'), 'utf8')).toBe('{"last":"build"}');
  });

  it("fails a plain JavaScript guest with an effect outside the WIT enum, with definePlugin's sentence", async () => {
    // componentize-js runs the top level (so definePlugin) while it snapshots the guest: the
    // tool list is checked at build time, not when a host lists the tools and the guest traps.
    // The SDK's source, by path: the test checks this definePlugin, not a built dist/.
    const sdk = join(import.meta.dirname, 'index.ts');
    const entry = join(dir, 'bad-effect.js');
    await writeFile(
      entry,
      `import { definePlugin } from ${JSON.stringify(sdk)};\n` +
        `export const tools = definePlugin({ tools: [\n` +
        `  { name: 'save', description: 'Saves', effect: 'writes', run: () => 'saved' },\n` +
        `] });\n`,
    );
    const outFile = join(dir, 'bad-effect.wasm');
    const failure = await buildGuest({ entry, outFile }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GuestBuildError);
    expect((failure as Error).message).toBe(
      `componentize-js could not build ${entry}: its top level threw: tool "save": effect "writes" is not one of pure, read, write, execute, network, external-read, destructive, session-write`,
    );
    await expect(access(outFile)).rejects.toMatchObject({ code: 'ENOENT' });
  }, 120_000);
});
