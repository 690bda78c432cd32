import { readFileSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import { defineConfig } from 'tsup';

// src/version.ts's CLAT_VERSION, inlined so a start need not read package.json.
const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

// The `clat` binary (bin/clat.js), built after the library (tsup.config.ts) into dist/bin/. One
// process owns every package it loads, so the workspace packages and zod are bundled from source:
// zod alone was ~95 ES modules, the largest part of `clat tools` startup. Code splitting keeps
// each command and adapter a chunk loaded on demand. Third-party packages stay external (they are
// @clat/cli dependencies too). The library build keeps workspace packages external, so programs
// that import @clat/cli share one kernel copy with their own imports.
export default defineConfig([
  {
    entry: { main: 'src/main.ts' },
    outDir: 'dist/bin',
    format: ['esm'],
    sourcemap: true,
    clean: true,
    target: 'node20',
    define: { __CLAT_VERSION__: JSON.stringify(version) },
    platform: 'node',
    splitting: true,
    // Less source to parse at every start (comments and whitespace are most of it); names stay as
    // written, for stack traces and error names.
    minifyWhitespace: true,
    minifySyntax: true,
    noExternal: [/^@clat\//, 'zod'],
    esbuildOptions(options) {
      options.conditions = ['@clat/source'];
    },
    // The WASM host starts its workers by path (new URL('./worker/…', import.meta.url)), which in
    // this bundle is relative to dist/bin/.
    onSuccess: async () => {
      await cp('../../packages/adapter-wasm/src/worker', 'dist/bin/worker', {
        recursive: true,
        filter: (source) => !source.endsWith('.test.ts'),
      });
    },
  },
  // bin/clat.js requires this first (src/bin-prestart.ts): one CommonJS file, loaded before the
  // ES-module loader exists, that spawns a trusted project's stdio servers. It holds the prestart
  // and the stdio teardown only (no zod, no MCP client; test/cli/prestart.test.ts checks).
  {
    entry: { prestart: 'src/bin-prestart.ts' },
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
