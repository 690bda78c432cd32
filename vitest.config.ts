import { defineConfig } from 'vitest/config';

// One vitest run over every workspace project, so CI reads a single closing summary line.
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*', 'plugins/*', 'test'],
    reporters: ['default'],
  },
});
