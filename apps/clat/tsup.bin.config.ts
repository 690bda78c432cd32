import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { appendFile, cp, readFile } from 'node:fs/promises';
import { defineConfig } from 'tsup';

// src/version.ts's CLAT_VERSION, inlined so a start need not read package.json.
const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

// The `clat` binary (bin/clat.js), built after the library (tsup.config.ts) into dist/bin/. One
// process owns every package it loads, so the workspace packages, zod and the third-party
// packages are bundled from source into ONE CommonJS file: bin/clat.js compiles it with
// `vm.Script` and V8's code cache (src/bin-main-bundle.ts), which Node 20 offers for neither ES
// modules nor `require`. Compiling the source was the largest part of a start; from the cache, one
// file of every command costs less than the few dozen ES-module chunks `clat tools` read before.
// Modules reached by `await import()` stay lazy inside the file (esbuild wraps them), so a command
// still runs only the code it uses. The library build keeps workspace packages external, so
// programs that import @clat/cli share one kernel copy with their own imports.
const BUNDLE = 'dist/bin/main.cjs';

export default defineConfig([
  {
    entry: { main: 'src/bin-main.ts' },
    outDir: 'dist/bin',
    format: ['cjs'],
    outExtension: () => ({ js: '.cjs' }),
    sourcemap: true,
    clean: true,
    target: 'node20',
    define: {
      __CLAT_VERSION__: JSON.stringify(version),
      // The WASM host starts its workers by path (new URL('./worker/…', import.meta.url)): in
      // this bundle, relative to dist/bin/.
      'import.meta.url': '__clatBundleUrl',
    },
    banner: { js: 'var __clatBundleUrl=require("node:url").pathToFileURL(__filename).href;' },
    platform: 'node',
    splitting: false,
    // Less source to parse at every start without a cache (comments and whitespace are most of
    // it); names stay as written, for stack traces and error names.
    minifyWhitespace: true,
    minifySyntax: true,
    noExternal: [/./],
    esbuildOptions(options) {
      options.conditions = ['@clat/source'];
    },
    onSuccess: async () => {
      await cp('../../packages/adapter-wasm/src/worker', 'dist/bin/worker', {
        recursive: true,
        filter: (source) => !source.endsWith('.test.ts'),
      });
      // The build id the code cache is keyed by: the bundle's own SHA-256 (bin-main-bundle.ts).
      const bundle = await readFile(BUNDLE);
      const id = createHash('sha256').update(bundle).digest('hex').slice(0, 16);
      await appendFile(BUNDLE, `\n//# clatBuildId=${id}\n`);
    },
  },
  // bin/clat.js requires this first (src/bin-boot.ts): one small CommonJS file that spawns a
  // trusted project's stdio servers, then loads the main bundle. It holds the prestart, the stdio
  // teardown and the bundle loader only (no zod, no MCP client; test/cli/prestart.test.ts checks).
  {
    entry: { boot: 'src/bin-boot.ts' },
    outDir: 'dist/early',
    format: ['cjs'],
    outExtension: () => ({ js: '.cjs' }),
    sourcemap: true,
    clean: true,
    target: 'node20',
    platform: 'node',
    splitting: false,
    minifyWhitespace: true,
    minifySyntax: true,
    noExternal: [/^@clat\//],
    esbuildOptions(options) {
      options.conditions = ['@clat/source'];
    },
  },
]);
