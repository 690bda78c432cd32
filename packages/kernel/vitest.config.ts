import { defineProject } from 'vitest/config';
import { sourceConditions } from '../../tooling/vitest-shared.js';

export default defineProject({
  ...sourceConditions,
  test: { name: 'kernel', include: ['src/**/*.test.ts'], testTimeout: 20_000 },
});
