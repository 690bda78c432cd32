/**
 * `pnpm bench --quick` end to end: the bench drives the packages' public APIs from plain .mjs
 * files that no typecheck covers, so an API change (a status shape, a renamed option) would
 * otherwise break the bench unseen until the next full run. Nothing here is timed: the figures
 * must all be measured, whatever their values.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const BENCH = fileURLToPath(new URL('./run.mjs', import.meta.url));
const FIGURES = [
  '1a',
  '1b',
  '1c',
  '1d',
  '1e',
  '1f',
  '2',
  '3a',
  '3b',
  '3c',
  '4a',
  '4b',
  '5a',
  '5b',
  '6a',
  '6b',
  '7a',
  '7b',
  '7c',
  '7d',
  '7e',
  '7f',
  '7g',
  '7h',
  '8a',
  '8b',
  '9a',
  '9b',
  '10a',
  '10b',
];

interface Figure {
  id: string | number;
  values: Record<string, number | null>;
  errors?: Record<string, string>;
}

const dir = await mkdtemp(join(tmpdir(), 'clat-bench-smoke-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('pnpm bench --quick', () => {
  it('measures every figure for CLAT and every peer', { timeout: 300_000 }, async () => {
    const resultsFile = join(dir, 'results.json');
    await promisify(execFile)(process.execPath, [BENCH, '--quick'], {
      env: { ...process.env, CLAT_BENCH_RESULTS: resultsFile },
      maxBuffer: 16 * 1024 * 1024,
      timeout: 280_000,
    });
    const { figures } = JSON.parse(await readFile(resultsFile, 'utf8')) as { figures: Figure[] };
    expect(figures.map((figure) => String(figure.id))).toEqual(FIGURES);
    for (const figure of figures) {
      expect(figure.errors ?? {}, `figure ${figure.id}: a peer failed`).toEqual({});
      // A lag (figure 10) can be 0: a tick on time. Every other figure is a time or a size.
      const least = String(figure.id).startsWith('10') ? 0 : Number.MIN_VALUE;
      for (const [column, value] of Object.entries(figure.values)) {
        expect(Number.isFinite(value) && (value as number) >= least, `${figure.id} ${column}`).toBe(
          true,
        );
      }
    }
  });
});
