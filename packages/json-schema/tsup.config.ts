import { defineConfig } from 'tsup';

export default defineConfig({
  // Two entries: `./meta` loads only the precompiled meta-schema validators, never Ajv's engine.
  entry: ['src/index.ts', 'src/meta.ts'],
  format: ['esm'],
  sourcemap: true,
  // Declarations come from one `tsc -b tsconfig.build.json` at the root, into this same dist/.
  clean: ['!**/*.d.ts', '!**/*.d.ts.map', '!.tsbuildinfo'],
  target: 'node20',
});
