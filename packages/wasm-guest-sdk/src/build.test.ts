import { mkdtemp, rm, writeFile } from 'node:fs/promises';
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
});
