#!/usr/bin/env node
// Turns the built component into the installable package directory `dist/` (plugin.wasm +
// clat-plugin.json whose runtime.sha256 is the component digest, as manifest v1 requires).
// src/clat-plugin.json is the source manifest. A copy for `~/.clat/plugins.json` development
// entries is also written to the package root (entry dist/plugin.wasm); it is generated, not
// tracked. Install with `clat plugin install plugins/wasm-summarize/dist`.
import { createHash } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

// JSON as the repo formatter prints it (short scalar arrays on one line), so lint stays clean.
function formatJson(value) {
  return `${JSON.stringify(value, null, 2).replace(
    /\[\n\s+([^[\]{}]*?)\n\s+\]/g,
    (_, body) => `[${body.split(/,\n\s+/).join(', ')}]`,
  )}\n`;
}

async function writeJson(path, value) {
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, formatJson(value));
  await rename(temp, path);
}

/** @returns {Promise<{dir: string, sha256: string}>} */
export async function buildPackage() {
  const dir = join(root, 'dist');
  const manifest = JSON.parse(await readFile(join(root, 'src/clat-plugin.json'), 'utf8'));
  const entry = manifest.runtime.entry;
  const sha256 = createHash('sha256')
    .update(await readFile(join(dir, entry)))
    .digest('hex');
  const packaged = { ...manifest, runtime: { ...manifest.runtime, sha256 } };
  await writeJson(join(dir, 'clat-plugin.json'), packaged);
  const development = { ...manifest, runtime: { ...packaged.runtime, entry: `dist/${entry}` } };
  await writeJson(join(root, 'clat-plugin.json'), development);
  return { dir, sha256 };
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const result = await buildPackage();
  process.stdout.write(
    `wasm-summarize package: ${result.dir} (component sha256 ${result.sha256})\n`,
  );
}
