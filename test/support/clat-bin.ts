/**
 * Runs the built `clat` binary as a user would from a script: a minimal environment (PATH and
 * CLAT_HOME only, so nothing of the test runner's environment leaks in) and a hang guard.
 * @module
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLAT_BIN = join(
  fileURLToPath(new URL('../../', import.meta.url)),
  'apps/clat/bin/clat.js',
);

export interface ClatExit {
  /** Exit code; 1 when the process was killed or could not run. */
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `clat <args>` in `cwd` with `home` as CLAT_HOME (plus `env`); never rejects. */
export function execClat(
  args: readonly string[],
  options: { cwd: string; home: string; timeoutMs?: number; env?: Record<string, string> },
): Promise<ClatExit> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLAT_BIN, ...args],
      {
        cwd: options.cwd,
        env: { PATH: process.env.PATH ?? '', ...options.env, CLAT_HOME: options.home },
        timeout: options.timeoutMs ?? 60_000,
      },
      (error, stdout, stderr) => {
        resolve({
          code: typeof error?.code === 'number' ? error.code : error ? 1 : 0,
          stdout,
          stderr,
        });
      },
    );
  });
}
