import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { whyNotWritable } from './writable.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clat-writable-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('whyNotWritable', () => {
  it('is undefined for a writable directory, and for a missing one under it', () => {
    expect(whyNotWritable(dir)).toBeUndefined();
    expect(whyNotWritable(join(dir, 'a', 'b'))).toBeUndefined();
  });

  // /proc/self refuses writes to every user, root included (a chmod 0500 directory does not stop
  // root, which the tests run as). The read-only file system is run through the binary, on a
  // read-only tmpfs, in test/packaging/full-home.
  it.runIf(process.platform === 'linux')(
    'names the nearest existing directory that refuses writes',
    () => {
      expect(whyNotWritable('/proc/self')).toBe('/proc/self is not writable');
      expect(whyNotWritable('/proc/self/plugins/data')).toBe('/proc/self is not writable');
    },
  );
});
