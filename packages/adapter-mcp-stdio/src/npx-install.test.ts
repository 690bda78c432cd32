import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pidAlive, trackedGroupCount } from '@clat/process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installNpxPackages, type NpxInstall, npxInstall } from './npx-install.js';

// A fake npm beside a fake npx (the runner takes npm from npx's directory): it records its
// arguments, working directory and one variable, then acts as FAKE_NPM says.
const FAKE_NPM = `#!/bin/sh
printf '%s\\n' "$@" > "$RECORD"
pwd >> "$RECORD"
printf 'TOKEN=%s\\n' "$TOKEN" >> "$RECORD"
case "$FAKE_NPM" in
  fail) echo "npm error code E404" >&2; echo "npm error 404 Not Found - GET http://127.0.0.1/nope" >&2; exit 1 ;;
  hang) sh -c 'echo $$ > "$RECORD.child"; sleep 60' & sleep 60 ;;
  *) echo "added 3 packages in 1s"; exit 0 ;;
esac
`;

let dir: string;
let npx: string;
let record: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clat-npx-install-'));
  npx = join(dir, 'npx');
  record = join(dir, 'record');
  await writeFile(join(dir, 'npm'), FAKE_NPM, { mode: 0o755 });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What the caller computes first: the install of an npx line (every line here is one). */
function install(command: string, args: string[]): NpxInstall {
  const found = npxInstall(command, args);
  if (found === undefined) throw new Error(`not an npx line: ${command}`);
  return found;
}

const env = (mode: string) => ({ PATH: process.env.PATH, RECORD: record, FAKE_NPM: mode });

describe('installNpxPackages', () => {
  it("runs npm exec for the npx line's packages in the server's directory and environment", async () => {
    const result = await installNpxPackages(
      install(npx, ['--registry=http://127.0.0.1:9/', '-y', '@scope/server@1', '--stdio']),
      {
        command: npx,
        cwd: dir,
        env: { ...env('ok'), TOKEN: 'from-entry' },
      },
    );
    expect(result.outcome).toBe('installed');
    expect((await readFile(record, 'utf8')).split('\n')).toEqual([
      'exec',
      '--registry=http://127.0.0.1:9/',
      '--yes',
      '--package=@scope/server@1',
      '--',
      'node',
      '-e',
      '0',
      dir,
      'TOKEN=from-entry',
      '',
    ]);
    expect(trackedGroupCount()).toBe(0);
  });

  it("reports npm's failure with its last lines, and says so when npm cannot run", async () => {
    const failed = await installNpxPackages(install(npx, ['-y', 'nope']), {
      command: npx,
      cwd: dir,
      env: env('fail'),
    });
    expect(failed).toMatchObject({
      outcome: 'failed',
      reason: 'npm exited with code 1',
      output: ['npm error code E404', 'npm error 404 Not Found - GET http://127.0.0.1/nope'],
    });
    const missing = await installNpxPackages(install(join(dir, 'absent', 'npx'), ['-y', 'pkg']), {
      command: join(dir, 'absent', 'npx'),
      cwd: dir,
      env: env('ok'),
    });
    expect(missing).toMatchObject({ outcome: 'failed' });
    expect(missing.outcome === 'failed' && missing.reason).toMatch(/^cannot run .*absent\/npm: /);
  });

  it('stops the whole group when aborted or out of time', async () => {
    const controller = new AbortController();
    const running = installNpxPackages(install(npx, ['-y', 'slow']), {
      command: npx,
      cwd: dir,
      env: env('hang'),
      signal: controller.signal,
    });
    // Wait until the install script's child exists, then abort.
    let child: number | undefined;
    for (let i = 0; i < 100 && child === undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      child = Number(await readFile(`${record}.child`, 'utf8').catch(() => '')) || undefined;
    }
    expect(child).toBeDefined();
    controller.abort();
    expect((await running).outcome).toBe('cancelled');
    expect(pidAlive(child as number)).toBe(false);

    const late = await installNpxPackages(install(npx, ['-y', 'slow']), {
      command: npx,
      cwd: dir,
      env: env('hang'),
      timeoutMs: 1_000,
    });
    expect(late).toMatchObject({ outcome: 'failed', reason: 'npm did not finish within 1 s' });
    expect(trackedGroupCount()).toBe(0);
  });
});
