/**
 * The command line of a package script that generates committed files into one directory (for
 * example packages/adapter-wasm/scripts/meta-validators.mjs, packages/wasm-guest-sdk/scripts/
 * guest-types.mjs): without arguments it rewrites the directory; with `--check` it only compares
 * and exits 1 naming the stale files, which is what the package's staleness test runs.
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';

async function listFiles(dir) {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

/** Names of the files in `dir` that differ from `fresh` (missing, stale or extra). */
async function staleFiles(dir, fresh) {
  const present = await listFiles(dir);
  const stale = present.filter((name) => !fresh.has(name));
  for (const [name, text] of fresh) {
    const current = await readFile(join(dir, name), 'utf8').catch(() => undefined);
    if (current !== text) stale.push(name);
  }
  return stale.sort();
}

/**
 * Runs the generator's command line.
 * @param {{
 *   dir: string,
 *   generate: () => Map<string, string> | Promise<Map<string, string>>,
 *   stale: (names: string[]) => string,
 *   wrote: string,
 * }} generator `dir` is written from `generate()` (relative path -> text); `stale(names)` is the
 *   check's message and `wrote` the line printed after a write.
 */
export async function runGenerator({ dir, generate, stale, wrote }) {
  const fresh = await generate();
  if (process.argv.includes('--check')) {
    const names = await staleFiles(dir, fresh);
    if (names.length > 0) {
      process.stderr.write(`${stale(names)}\n`);
      process.exit(1);
    }
    return;
  }
  await rm(dir, { recursive: true, force: true });
  for (const [name, text] of fresh) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  process.stdout.write(`${wrote}\n`);
}
