import { beforeAll, describe, expect, it } from 'vitest';
import { withoutDebugLog } from './glue-load.js';
import { fixtureGlueSource } from './test-support/build-wat.js';

describe('the glue a guest worker loads', () => {
  let glue: string;

  beforeAll(async () => {
    glue = await fixtureGlueSource();
  });

  it("replaces the pinned jco's never-enabled debug logger with an empty function, and nothing else", () => {
    // Fails when a jco upgrade words the logger differently: the replacement would be lost.
    expect(glue).toContain('console.debug(...args);');
    const tuned = withoutDebugLog(glue);
    expect(tuned).toContain('const _debugLog = () => {};');
    expect(tuned).not.toContain('console.debug(...args);');
    const removed = glue.length - tuned.length;
    expect(removed).toBeGreaterThan(0);
    expect(removed).toBeLessThan(200);
    expect(tuned.replace('const _debugLog = () => {};', '')).toBe(
      glue.replace(/const _debugLog = \(\.\.\.args\) => \{[\s\S]*?\n\s*\};/, ''),
    );
  });

  it('leaves glue that words its logger differently as it is', () => {
    const other = 'const _debugLog = (...args) => { console.debug(...args); };';
    expect(withoutDebugLog(other)).toBe(other);
  });
});
