/**
 * One CLAT home rule: `clat` resolves it with `resolveClatHome` (apps/clat), and `clat-gateway`,
 * which may not depend on `@clat/cli`, reads the same rule at its binary's edge. The libraries
 * take the resulting path; none of them guesses `~/.clat`.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { resolveClatHome } from '@clat/cli';
import { gatewayClatHome } from '@clat/gateway';
import { describe, expect, it } from 'vitest';

const CASES: { env: NodeJS.ProcessEnv; expected: string }[] = [
  { env: {}, expected: join(homedir(), '.clat') },
  { env: { CLAT_HOME: '' }, expected: join(homedir(), '.clat') },
  { env: { CLAT_HOME: '   ' }, expected: join(homedir(), '.clat') },
  { env: { CLAT_HOME: '/opt/clat-home' }, expected: '/opt/clat-home' },
  { env: { CLAT_HOME: ' rel/home ' }, expected: '/work/project/rel/home' },
  { env: { CLAT_HOME: '../up' }, expected: '/work/up' },
];

describe('the CLAT home rule', () => {
  it.each(CASES)(
    'clat and clat-gateway agree for CLAT_HOME=$env.CLAT_HOME',
    ({ env, expected }) => {
      expect(resolveClatHome(env, '/work/project').dir).toBe(expected);
      expect(gatewayClatHome(env, '/work/project')).toBe(expected);
    },
  );
});
