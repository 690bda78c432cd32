import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readRefusal } from './read-refusal.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clat-read-refusal-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function refused(code: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: refused, open '${path}'`), {
    code,
    syscall: 'open',
    path,
  });
}

// The tests run as root, whom no mode refuses: the errors are made here, the file's owner and
// mode are real. Through the binary it runs as uid 65534 in test/cli/home-damage.
describe('readRefusal', () => {
  it("names the file's owner and mode, the uid clat runs as, and what to do", async () => {
    const file = join(dir, 'registry.json');
    await writeFile(file, '{}', { mode: 0o640 });
    const uid = process.getuid?.() ?? 0;
    expect(readRefusal(file, refused('EACCES', file))).toBe(
      `cannot read ${file}: permission denied (EACCES); it belongs to uid ${uid} with mode 0640 and clat runs as uid ${uid}: give it back to the user who runs clat (chown) with mode 0600, or run clat as its owner`,
    );
  });

  it('sends a person to the directory when the file cannot be looked at, and reads a wrapped cause', () => {
    const file = join(dir, 'missing', 'secrets.json');
    const wrapped = Object.assign(new Error('the store could not read it'), {
      code: 'ENTRY_INVALID',
      cause: refused('EPERM', file),
    });
    expect(readRefusal(file, wrapped)).toMatch(
      new RegExp(
        `^cannot read ${file}: operation not permitted \\(EPERM\\); check the owner and mode of its directory ${join(dir, 'missing')} \\(ls -ld\\), as clat runs as uid \\d+$`,
      ),
    );
  });

  it('is undefined for any other error', () => {
    expect(readRefusal(join(dir, 'x'), refused('ENOENT', join(dir, 'x')))).toBeUndefined();
    expect(readRefusal(join(dir, 'x'), new Error('bad JSON'))).toBeUndefined();
  });
});
