import { defineConfig } from 'tsup';

export default defineConfig({
  // `./plain-stdio-entry` is its own entry: a CLI reads mcp.json with it before loading zod.
  entry: ['src/index.ts', 'src/plain-stdio-entry.ts', 'src/testing/index.ts'],
  format: ['esm'],
  sourcemap: true,
  // Declarations come from one `tsc -b tsconfig.build.json` at the root, into this same dist/.
  clean: ['!**/*.d.ts', '!**/*.d.ts.map', '!.tsbuildinfo'],
  target: 'node20',
  external: [/^@clat\//, 'zod'],
});
