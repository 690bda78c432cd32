import { describe, expect, it } from 'vitest';
import { guestDirNames } from './write-access.js';

describe('guestDirNames', () => {
  it('names extra preopens after their basename, sanitized and trimmed', () => {
    expect(guestDirNames(['/home/u/notes', '/srv/my data!', '/tmp/out_2'])).toEqual([
      'notes',
      'my-data',
      'out_2',
    ]);
  });

  it('falls back to dirN when the name is empty or taken (including "project")', () => {
    expect(guestDirNames(['/a/notes', '/b/notes', '/', '/c/project', '/d/dir1'])).toEqual([
      'notes',
      'dir1',
      'dir2',
      'dir3',
      'dir4',
    ]);
  });
});
