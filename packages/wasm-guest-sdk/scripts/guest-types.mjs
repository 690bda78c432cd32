#!/usr/bin/env node
// Generates the guest's TypeScript declarations of the clat:plugin imports from wit/plugin.wit
// with jco (the same generator `jco guest-types` runs), into src/gen/. `--check` only compares
// and exits 1 when the committed files are stale (src/gen-types.test.ts runs the same check).
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { types as typesComponent } from '@bytecodealliance/jco';

const root = fileURLToPath(new URL('..', import.meta.url));
export const GEN_DIR = join(root, 'src/gen');

/** @returns {Promise<Map<string, string>>} path relative to src/gen -> text */
export async function generateGuestTypes() {
  const files = await typesComponent(join(root, 'wit/plugin.wit'), {
    worldName: 'plugin',
    guest: true,
    quiet: true,
  });
  return new Map(
    Object.entries(files).map(([name, bytes]) => [name, Buffer.from(bytes).toString('utf8')]),
  );
}

async function listFiles(dir) {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

/** Names of the files that differ from a fresh generation (missing, stale or extra). */
export async function staleGuestTypes() {
  const fresh = await generateGuestTypes();
  const present = await listFiles(GEN_DIR);
  const stale = present.filter((name) => !fresh.has(name));
  for (const [name, text] of fresh) {
    const current = await readFile(join(GEN_DIR, name), 'utf8').catch(() => undefined);
    if (current !== text) stale.push(name);
  }
  return stale.sort();
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes('--check')) {
    const stale = await staleGuestTypes();
    if (stale.length > 0) {
      process.stderr.write(
        `src/gen is out of date with wit/plugin.wit (${stale.join(', ')}); run "pnpm guest-types"\n`,
      );
      process.exit(1);
    }
  } else {
    await rm(GEN_DIR, { recursive: true, force: true });
    for (const [name, text] of await generateGuestTypes()) {
      await mkdir(dirname(join(GEN_DIR, name)), { recursive: true });
      await writeFile(join(GEN_DIR, name), text);
    }
    process.stdout.write(`wrote ${relative(root, GEN_DIR)} from wit/plugin.wit\n`);
  }
}
