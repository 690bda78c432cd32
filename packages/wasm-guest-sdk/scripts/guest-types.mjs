#!/usr/bin/env node
// Generates the guest's TypeScript declarations of the clat:plugin imports from wit/plugin.wit
// with jco (the same generator `jco guest-types` runs), into src/gen/. `--check` only compares
// and exits 1 when the committed files are stale (src/gen-types.test.ts runs the same check).
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { types as typesComponent } from '@bytecodealliance/jco';
import { runGenerator } from '../../../tooling/generated-files.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const GEN_DIR = join(root, 'src/gen');

/** @returns {Promise<Map<string, string>>} path relative to src/gen -> text */
async function generateGuestTypes() {
  const files = await typesComponent(join(root, 'wit/plugin.wit'), {
    worldName: 'plugin',
    guest: true,
    quiet: true,
  });
  return new Map(
    Object.entries(files).map(([name, bytes]) => [name, Buffer.from(bytes).toString('utf8')]),
  );
}

await runGenerator({
  dir: GEN_DIR,
  generate: generateGuestTypes,
  stale: (names) =>
    `src/gen is out of date with wit/plugin.wit (${names.join(', ')}); run "pnpm guest-types"`,
  wrote: `wrote ${relative(root, GEN_DIR)} from wit/plugin.wit`,
});
