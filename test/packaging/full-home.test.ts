/**
 * A CLAT home that cannot take writes, through the `clat` binary: on a full file system an
 * install fails with the disk's own error (before, a short write left a truncated copy in
 * staging and the install blamed the package's digest, with a `clat plugin pack` hint that
 * changed nothing), leaving no staging copy behind; on a read-only home an installed plugin
 * whose data directory cannot be made stops that plugin only, and every other server still
 * starts (before, every command that starts servers failed with EROFS), and an edit names the
 * file it could not write, not its temporary sibling.
 * Needs a tmpfs mount (root, as in CI); skipped where mounting is not allowed.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAT_BIN } from '../cli/support.js';
import { hasTmux, TmuxSession } from '../cli/tmux.js';
import { execClat } from '../support/clat-bin.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NOTES = join(REPO_ROOT, 'plugins/mcp-notes/dist/package');
const LEGACY = join(REPO_ROOT, 'test/fixtures/mcp-servers/legacy.mjs');

let work = '';
const mounted: string[] = [];

/** Mounts a tmpfs of `size` at `dir`; false where this process may not mount. */
function mountTmpfs(dir: string, size: string): boolean {
  const result = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir]);
  if (result.status !== 0) return false;
  mounted.push(dir);
  return true;
}

const canMount = await (async () => {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  const probe = await mkdtemp(join(tmpdir(), 'clat-mount-probe-'));
  const ok = mountTmpfs(probe, '64k');
  if (ok) execFileSync('umount', [mounted.pop() as string]);
  await rm(probe, { recursive: true, force: true });
  return ok;
})();

beforeAll(async () => {
  if (!existsSync(NOTES)) throw new Error(`${NOTES} is missing; run "pnpm build" first`);
  work = await mkdtemp(join(tmpdir(), 'clat-full-home-'));
});

afterAll(async () => {
  for (const dir of mounted.reverse()) spawnSync('umount', ['-l', dir]);
  if (work !== '') await rm(work, { recursive: true, force: true });
});

describe.skipIf(!canMount)('a CLAT home that cannot take writes', () => {
  it('a full disk fails the install with its own error and leaves no staging copy', async () => {
    const home = join(work, 'full');
    await mkdir(home);
    // Room for the store's directories and lock, not for the 760 KB server.
    expect(mountTmpfs(home, '64k')).toBe(true);
    const result = await execClat(['plugin', 'install', NOTES, '--accept-capabilities'], {
      cwd: work,
      home,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'clat: plugin install: cannot write: the disk is full (ENOSPC); free some space and retry\n',
    );
    expect(result.stderr).not.toContain('runtime.sha256');
    const staging = join(home, 'plugin-store', 'staging');
    expect(await readdir(staging).catch(() => [])).toEqual([]);
    expect(existsSync(join(home, 'plugin-store', 'registry.json'))).toBe(false);
  }, 60_000);

  it('on a read-only home a plugin without its data directory stops alone', async () => {
    const home = join(work, 'readonly');
    const project = join(work, 'project');
    await mkdir(home);
    await mkdir(project);
    expect(mountTmpfs(home, '16m')).toBe(true);
    const clat = (...args: string[]) => execClat(args, { cwd: project, home });
    await writeFile(
      join(home, 'mcp.json'),
      JSON.stringify({ mcpServers: { legacy: { command: process.execPath, args: [LEGACY] } } }),
    );
    expect((await clat('trust')).code).toBe(0);
    const installed = await clat('plugin', 'install', NOTES, '--accept-capabilities');
    expect(installed.code, installed.stderr).toBe(0);
    execFileSync('mount', ['-o', 'remount,ro', home]);

    const call = await clat('call', 'mcp_legacy_echo', '{"text":"still here"}');
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout).toContain('still here');
    // `clat mcp` exits 1 for a config issue; the issue names the directory and why.
    const status = await clat('mcp');
    expect(status.code).toBe(1);
    const data = join(home, 'plugin-data', 'mcp-notes');
    expect(status.stdout).toContain(
      `${data}: mcp-notes: cannot create its data directory ${data}: ${home} is on a read-only file system`,
    );
    expect(status.stdout).toMatch(/legacy\s+stdio\s+connected/);
    // An edit says which file it could not write and why, not a temporary file's raw EROFS.
    const add = await clat('mcp', 'add', 'other', '--', 'node', 'server.js');
    expect(add.code).toBe(1);
    expect(add.stderr).toBe(
      `clat: cannot write ${join(home, 'mcp.json')}: its file system is read-only (EROFS)\n`,
    );

    // An untrusted project: `clat trust` could not record trust here, so the advice is --trust,
    // which works (before: "run clat trust <dir>", which failed with EROFS).
    const other = join(work, 'other-project');
    await mkdir(join(other, '.clat'), { recursive: true });
    await writeFile(
      join(other, '.clat', 'mcp.json'),
      JSON.stringify({ mcpServers: { team: { command: process.execPath, args: [LEGACY] } } }),
    );
    const inOther = (...args: string[]) => execClat(args, { cwd: other, home });
    const refused = await inOther('tools');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `project ${other} is not trusted, so no MCP server was started; pass --trust: trust cannot be recorded, as ${home} is on a read-only file system`,
    );
    expect(refused.stderr).not.toContain('clat trust');
    const listed = await inOther('mcp', 'list');
    expect(listed.stdout).toContain(
      `${join(other, '.clat', 'mcp.json')} is not read because the project is not trusted (pass --trust: trust cannot be recorded, as ${home} is on a read-only file system)`,
    );
    const trusted = await inOther('tools', '--trust');
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.stdout).toContain('mcp_team_echo');

    // On a terminal the session asks for this run only, and a yes starts the servers.
    if (hasTmux()) {
      const tmux = new TmuxSession(`clat-ro-${process.pid}-${Date.now()}`);
      try {
        tmux.start([process.execPath, CLAT_BIN], other, { CLAT_HOME: home });
        await tmux.waitFor(`CLAT cannot record trust (${home} is on a read-only file system).`);
        await tmux.waitFor('Trust it for this run? [y/N]');
        tmux.line('y');
        await tmux.waitFor(/MCP servers: 2 configured · 0 connecting · 2 connected/);
        tmux.line('/exit');
        await tmux.waitFor('EXITED:0');
      } finally {
        tmux.kill();
      }
    }
  }, 90_000);
});
