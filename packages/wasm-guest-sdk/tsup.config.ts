import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/build.ts'],
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'es2022',
  // clat:plugin/* are component imports, resolved by componentize-js, never bundled.
  external: [/^clat:plugin\//, /^@bytecodealliance\//, 'esbuild'],
});
