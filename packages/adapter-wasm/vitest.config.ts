import { defineProject } from 'vitest/config';
import { sourceConditions } from '../../tooling/vitest-shared.js';

export default defineProject({
  ...sourceConditions,
  test: {
    name: 'adapter-wasm',
    include: ['src/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
