import { defineConfig } from 'tsup';

export default defineConfig({
  // `./prestart` and `./eras` are their own entries: a CLI loads them before the transport (and
  // the MCP core), or without it (a host whose servers are all HTTP still remembers eras).
  // `./npx` installs an npx server's packages ahead of its start (`clat mcp add`), without either.
  entry: ['src/index.ts', 'src/prestart.ts', 'src/era-file.ts', 'src/npx-install.ts'],
  format: ['esm'],
  sourcemap: true,
  // Declarations come from one `tsc -b tsconfig.build.json` at the root, into this same dist/.
  clean: ['!**/*.d.ts', '!**/*.d.ts.map', '!.tsbuildinfo'],
  target: 'node20',
  external: [/^@clat\//, 'zod'],
});
