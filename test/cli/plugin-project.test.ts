/**
 * A built plugin project (what `clat plugin new mcp` writes, after `npm install && npm run build`)
 * through the real binary: `inspect .` and `pack .` read its built package as `install .` does,
 * not the project with its node_modules; and the install/update advice names the exact source to
 * paste, where it used to loop between "use clat plugin update" and a usage error.
 * The build is stood in for: the notes plugin's built package is copied to `dist/package`.
 */
import { cp, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NOTES_SERVER, parseJsonOutput, useCliSandbox } from './support.js';

let project: string;

const sandbox = useCliSandbox(async () => {
  project = join(sandbox.root, 'hello-mcp');
  const created = await sandbox.run(['plugin', 'new', 'mcp', 'hello-mcp', project]);
  expect(created.code).toBe(0);
  // What `npm install` and `npm run build` leave behind: a .bin symlink and the built package.
  await mkdir(join(project, 'node_modules', '.bin'), { recursive: true });
  await symlink('../esbuild/bin/esbuild', join(project, 'node_modules', '.bin', 'esbuild'));
  await cp(dirname(NOTES_SERVER), join(project, 'dist', 'package'), { recursive: true });
});

async function bumpVersion(version: string): Promise<void> {
  const file = join(project, 'dist', 'package', 'clat-plugin.json');
  const manifest = JSON.parse(await readFile(file, 'utf8')) as { version: string };
  await writeFile(file, JSON.stringify({ ...manifest, version }, null, 2));
}

describe('a built plugin project', () => {
  it('inspects and packs "." as its built package', async () => {
    const inspected = await sandbox.run(['plugin', 'inspect', '.', '--json'], { cwd: project });
    expect(inspected.stderr).toBe('');
    expect(parseJsonOutput<{ id: string }>(inspected).id).toBe('mcp-notes');

    const packed = await sandbox.run(['plugin', 'pack', '.', '-o', 'hello.clatpkg'], {
      cwd: project,
    });
    expect(packed.stderr).toBe('');
    expect(packed.code).toBe(0);
    expect(packed.stdout).toContain(`(server.mjs) in ${join(project, 'dist', 'package')}`);
    expect(packed.stdout).toContain(`into ${join(project, 'hello.clatpkg')}`);
  });

  it('advises the exact update command, which then works', async () => {
    const run = (args: string[]) => sandbox.run(['plugin', ...args], { cwd: project });
    expect((await run(['install', '.', '--accept-capabilities'])).code).toBe(0);
    await bumpVersion('0.2.0');

    const again = await run(['install', '.', '--accept-capabilities']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      'mcp-notes is already installed (version 0.1.0); to replace it, run "clat plugin update ."',
    );
    const updated = await run(['update', '.']);
    expect(updated.stderr).toBe('');
    expect(updated.stdout).toContain('Updated mcp-notes 0.2.0');

    // The id of a local install: CLAT does not record the path, so it asks for it exactly.
    const byId = await run(['update', 'mcp-notes']);
    expect(byId.code).toBe(1);
    expect(byId.stderr).toContain(
      'mcp-notes was installed from a local directory or file, whose path CLAT does not record; run "clat plugin update <path>" with that directory, .clatpkg, .mcpb or .wasm file (in a plugin project: "clat plugin update .")',
    );
  });

  it('advises the exact install command for a package that is not installed', async () => {
    const result = await sandbox.run(['plugin', 'update', './hello-mcp'], { cwd: sandbox.root });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'mcp-notes is not installed; to install it, run "clat plugin install ./hello-mcp"',
    );
  });
});
