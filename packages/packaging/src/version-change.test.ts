import { describe, expect, it } from 'vitest';
import { semverProblem, versionChange } from './version-change.js';

describe('versionChange', () => {
  it('orders semantic versions as npm does', () => {
    expect(versionChange('1.9.0', '1.10.0')).toBe('upgrade');
    expect(versionChange('2.0.0', '1.10.0')).toBe('downgrade');
    expect(versionChange('1.0.0', '1.0.0-beta.2')).toBe('downgrade');
    expect(versionChange('1.0.0', '1.0.0')).toBe('same');
    expect(versionChange('v1.2.3', '1.2.3')).toBe('same');
  });

  it('cannot order free text', () => {
    expect(versionChange('nightly', '2024-05-01')).toBe('unknown');
    expect(versionChange('1.0.0', 'latest')).toBe('unknown');
    expect(versionChange('nightly', 'nightly')).toBe('same');
  });
});

describe('semverProblem', () => {
  it('accepts what npm takes and names the version meant', () => {
    expect(semverProblem('0.1.0')).toBeUndefined();
    expect(semverProblem('1.0.0-beta.2')).toBeUndefined();
    expect(semverProblem('1.0')).toMatch(/is not a semantic version .*; did you mean "1\.0\.0"\?$/);
    expect(semverProblem('version 2')).toMatch(/did you mean "2\.0\.0"\?$/);
    expect(semverProblem('first')).toMatch(/; for example "0\.1\.0"$/);
  });
});
