import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
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
