import { defineProject } from 'vitest/config';
import { sourceConditions } from '../../tooling/vitest-shared.js';

export default defineProject({
  ...sourceConditions,
  test: { name: 'json-schema', include: ['src/**/*.test.ts'], testTimeout: 20_000 },
});
