import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/build.ts'],
  format: ['esm'],
  sourcemap: true,
  // Declarations come from one `tsc -b tsconfig.build.json` at the root, into this same dist/.
  clean: ['!**/*.d.ts', '!**/*.d.ts.map', '!.tsbuildinfo'],
  target: 'es2022',
  // clat:plugin/* are component imports, resolved by componentize-js, never bundled.
  external: [/^clat:plugin\//, /^@bytecodealliance\//, 'esbuild'],
});
