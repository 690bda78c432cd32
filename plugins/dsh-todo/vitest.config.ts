import { defineProject } from 'vitest/config';
import { sourceConditions } from '../../tooling/vitest-shared.js';

export default defineProject({
  ...sourceConditions,
  test: { name: 'dsh-todo', include: ['src/**/*.test.ts'], testTimeout: 30_000 },
});
