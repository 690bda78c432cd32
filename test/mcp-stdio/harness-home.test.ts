import { existsSync } from 'node:fs';
import { expect, it } from 'vitest';
import { McpHarness } from './support.js';

// The fault zoos mount two servers at once; each mount asked for the home, and each made one:
// every case left a directory in the temp dir.
it('the stdio harness makes one home for mounts asked in parallel and removes it on close', async () => {
  const harness = new McpHarness();
  const asked = await Promise.all([harness.home(), harness.home(), harness.home()]);
  expect(new Set(asked).size).toBe(1);
  const home = asked[0] as string;
  expect(existsSync(home)).toBe(true);
  await harness.close();
  expect(existsSync(home)).toBe(false);
});
