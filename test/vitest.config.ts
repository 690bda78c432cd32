import { defineProject } from 'vitest/config';
import { sourceConditions } from '../tooling/vitest-shared.js';

// End-to-end tests spawn real processes (built dist/ of the CLI, real MCP servers), so they run
// after `pnpm build` and get generous per-test deadlines.
export default defineProject({
  ...sourceConditions,
  test: {
    name: 'e2e',
    include: ['**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/fixtures/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
