import { spawn } from 'node:child_process';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, tempDirs } from './test-support.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

// Swaps `dir` between a real directory and a symlink to `outside` as fast as it can, in another
// process, until killed: the window between the fence check and the write is hit for real. It
// says "swapping" after its first round, so the writes start racing at once.
const SWAPPER = `
const { renameSync, symlinkSync, unlinkSync, writeSync } = require('node:fs');
const [dir, outside] = process.argv.slice(1);
const real = dir + '.real';
let told = false;
for (;;) {
  try { renameSync(dir, real); symlinkSync(outside, dir); } catch {}
  try { unlinkSync(dir); renameSync(real, dir); } catch {}
  if (!told) { told = true; writeSync(1, 'swapping\\n'); }
}
`;

/**
 * Writes at least this many times, then on until one landed and the fence refused one, for at
 * most the extra time: a loaded machine may give the swapper little CPU (in one CI run, 400
 * writes all landed) or nearly all of it (in another, all 400 were refused).
 */
const MIN_CALLS = 400;
const EXTRA_MS = 30_000;

describe('write fence race (issue 14 item 5)', () => {
  it('a directory swapped for a symlink mid-write never gets a byte outside the project', async () => {
    const project = await dirs.make('clat-race-project-');
    const outside = await dirs.make('clat-race-outside-');
    const sub = join(project, 'sub');
    await mkdir(sub);
    await writeFile(join(sub, 'edit.txt'), 'alpha\n');
    const h = harness(project);
    const swapper = spawn(process.execPath, ['-e', SWAPPER, sub, outside], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let written = 0;
    let refused = 0;
    try {
      await new Promise<void>((resolve, reject) => {
        swapper.stdout.once('data', () => resolve());
        swapper.once('exit', (code) => reject(new Error(`the swapper exited (${code})`)));
      });
      const until = Date.now() + EXTRA_MS;
      for (
        let i = 0;
        i < MIN_CALLS || ((refused === 0 || written === 0) && Date.now() < until);
        i++
      ) {
        const result = await h.call(
          i % 4 === 3 ? 'edit_file' : 'write_file',
          i % 4 === 3
            ? { path: 'sub/edit.txt', old_str: 'alpha', new_str: 'alphax' }
            : { path: `sub/f${i}.txt`, content: `payload ${i}` },
        );
        if (result.isError === true) refused++;
        else written++;
      }
    } finally {
      swapper.kill('SIGKILL');
      await new Promise((resolve) => swapper.once('exit', resolve));
    }
    expect(await readdir(outside)).toEqual([]);
    // The race really ran: some writes landed, some were refused by the fence.
    expect(written).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  }, 90_000);
});
