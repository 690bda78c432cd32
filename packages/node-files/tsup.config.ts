import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  sourcemap: true,
  // Declarations come from one `tsc -b tsconfig.build.json` at the root, into this same dist/.
  clean: ['!**/*.d.ts', '!**/*.d.ts.map', '!.tsbuildinfo'],
  target: 'node20',
});
