#!/usr/bin/env node
// Builds the installable package directory: one self-contained executable entry (esbuild bundle
// with a node shebang, mode 0755) plus clat-plugin.json whose runtime.sha256 is the entry digest.
// src/clat-plugin.json is the source manifest; its sha256 is a placeholder filled here.
import { createHash } from 'node:crypto';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** @param {string} outDir @returns {Promise<{dir: string, entry: string, sha256: string}>} */
export async function buildPackage(outDir) {
  const dir = resolve(outDir);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const manifest = JSON.parse(await readFile(join(root, 'src/clat-plugin.json'), 'utf8'));
  const entry = join(dir, manifest.runtime.entry);
  await build({
    entryPoints: [join(root, 'src/main.ts')],
    outfile: entry,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    legalComments: 'none',
    minify: true,
    logLevel: 'warning',
    // Bundled CJS dependencies may call require(); give ESM output a real one.
    banner: {
      js: "#!/usr/bin/env node\nimport { createRequire as __clatCreateRequire } from 'node:module';\nconst require = __clatCreateRequire(import.meta.url);",
    },
  });
  await chmod(entry, 0o755);
  const sha256 = createHash('sha256')
    .update(await readFile(entry))
    .digest('hex');
  manifest.runtime.sha256 = sha256;
  await writeFile(join(dir, 'clat-plugin.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  await writeFile(
    join(dir, 'README.md'),
    '# mcp-notes\n\nA dual-era MCP stdio server that keeps notes in `notes.json`.\nInstall with `clat plugin install <this dir>`.\n',
  );
  return { dir, entry, sha256 };
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = process.argv[2] ?? 'dist/package';
  const result = await buildPackage(resolve(root, out));
  process.stdout.write(`mcp-notes package: ${result.dir} (entry sha256 ${result.sha256})\n`);
}
