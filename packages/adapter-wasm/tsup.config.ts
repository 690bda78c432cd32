import { cp } from 'node:fs/promises';
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  sourcemap: true,
  // Declarations come from one `tsc -b tsconfig.build.json` at the root, into this same dist/.
  clean: ['!**/*.d.ts', '!**/*.d.ts.map', '!.tsbuildinfo'],
  target: 'node20',
  external: [/^@clat\//, 'zod', /^@bytecodealliance\//],
  // The worker entries are plain ESM loaded by path (new URL('./worker/…', import.meta.url)),
  // so src/ and dist/ keep the same relative layout.
  onSuccess: async () => {
    await cp('src/worker', 'dist/worker', {
      recursive: true,
      filter: (source) => !source.endsWith('.test.ts'),
    });
  },
});
