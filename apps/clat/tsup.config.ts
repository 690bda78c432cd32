import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';

// src/version.ts's CLAT_VERSION, inlined so a start need not read package.json.
const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

export default defineConfig({
  entry: ['src/index.ts', 'src/main.ts', 'src/demo.ts'],
  format: ['esm'],
  sourcemap: true,
  // Declarations come from one `tsc -b tsconfig.build.json` at the root, into this same dist/.
  clean: ['!**/*.d.ts', '!**/*.d.ts.map', '!.tsbuildinfo'],
  target: 'node20',
  define: { __CLAT_VERSION__: JSON.stringify(version) },
  // Workspace packages stay external so every package loads exactly one kernel copy.
  external: [/^@clat\//, 'zod'],
});
