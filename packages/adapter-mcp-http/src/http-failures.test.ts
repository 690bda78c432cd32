import { describe, expect, it } from 'vitest';
import { networkReason } from './http-failures.js';

describe('networkReason', () => {
  it('prefers an error code anywhere in the cause chain', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(networkReason(new TypeError('fetch failed', { cause: refused }))).toBe('ECONNREFUSED');
  });

  it("keeps fetch's inner reason when no cause has a code", () => {
    const failed = new TypeError('fetch failed', { cause: new Error('bad port') });
    expect(networkReason(failed)).toBe('fetch failed: bad port');
    expect(networkReason(new Error('plain'))).toBe('plain');
  });
});
