import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/main.ts', 'src/demo.ts'],
  format: ['esm'],
  dts: { entry: ['src/index.ts'] },
  sourcemap: true,
  clean: true,
  target: 'node20',
  // Workspace packages stay external so every package loads exactly one kernel copy.
  external: [/^@clat\//, 'zod'],
});
