import { defineConfig } from 'tsup';

export default defineConfig({
  // `./prestart` is its own entry: a CLI loads it before the transport (and the MCP core).
  entry: ['src/index.ts', 'src/prestart.ts'],
  format: ['esm'],
  sourcemap: true,
  // Declarations come from one `tsc -b tsconfig.build.json` at the root, into this same dist/.
  clean: ['!**/*.d.ts', '!**/*.d.ts.map', '!.tsbuildinfo'],
  target: 'node20',
  external: [/^@clat\//, 'zod'],
});
