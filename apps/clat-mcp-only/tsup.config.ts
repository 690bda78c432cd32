import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/main.ts'],
  format: ['esm'],
  sourcemap: true,
  clean: true,
  target: 'node20',
  // Workspace packages stay external so every package loads exactly one kernel copy.
  external: [/^@clat\//, 'zod'],
});
