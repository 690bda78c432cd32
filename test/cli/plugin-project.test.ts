/**
 * A built plugin project (what `clat plugin new mcp` writes, after `npm install && npm run build`)
 * through the real binary: `inspect .` and `pack .` read its built package as `install .` does,
 * not the project with its node_modules; and the install/update advice names the exact source to
 * paste, where it used to loop between "use clat plugin update" and a usage error.
 * The build is stood in for: the notes plugin's built package is copied to `dist/package`.
 */
import { existsSync } from 'node:fs';
import { chmod, cp, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
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

describe('clat plugin new', () => {
  it('says where the steps start, and for an SDK kind what to do while npm cannot find the SDK', async () => {
    const mcp = await sandbox.run(['plugin', 'new', 'mcp', 'next-mcp'], { cwd: sandbox.root });
    expect(mcp.stdout).toContain(`Created an mcp plugin in ${join(sandbox.root, 'next-mcp')}`);
    expect(mcp.stdout).toContain('the README has the rest.\n');
    const dsh = await sandbox.run(['plugin', 'new', 'dsh', 'next-dsh'], { cwd: sandbox.root });
    expect(dsh.stdout).toContain(
      'the README has the rest, and what to do while npm cannot find the @clat/ packages (they are not on the public npm registry yet).\n',
    );
    // The README's steps pack the kind's own SDK packages into a directory of their own.
    const readme = await readFile(join(sandbox.root, 'next-dsh', 'README.md'), 'utf8');
    expect(readme).toContain('npx pnpm pack --pack-destination ~/clat-sdk-dsh');
    expect(readme).toContain('npm install ~/clat-sdk-dsh/*.tgz');
  });
});

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
    // pack names the next command for an installed id: update, then nothing once it is in.
    const built = join(project, 'dist', 'package');
    expect((await run(['pack', '.'])).stdout).toContain(
      `mcp-notes 0.2.0 is ready; mcp-notes is installed, so: clat plugin update ${built}\n`,
    );
    const updated = await run(['update', '.']);
    expect(updated.stderr).toBe('');
    expect(updated.stdout).toContain('Updated mcp-notes 0.2.0');
    expect((await run(['pack', '.'])).stdout).toContain(
      'mcp-notes 0.2.0 is ready, and installed with this content\n',
    );
    // Rebuilt without a version bump: said as new content under the same version.
    await writeFile(join(project, 'dist', 'package', 'README.md'), 'rebuilt\n');
    const rebuilt = await run(['update', '.']);
    expect(rebuilt.stdout).toMatch(
      /^Updated mcp-notes 0\.2\.0 to new content under the same version \(tree [0-9a-f]{12}\); the rollback is the content before it\. Raising "version" in clat-plugin\.json tells them apart\n/,
    );

    // The same build again changes nothing and says so; a file the server wrote beside it stays.
    const [row] = parseJsonOutput<{ treeSha256: string }[]>(
      await sandbox.run(['plugin', 'list', '--json']),
    );
    const tree = row?.treeSha256 as string;
    const dir = join(sandbox.home, 'plugin-store', 'artifacts', 'mcp-notes', tree);
    await writeFile(join(dir, 'notes.db'), 'kept');
    const same = await run(['update', '.']);
    expect(same.stderr).toBe('');
    expect(same.stdout).toBe(
      `mcp-notes 0.2.0 is already installed with the same content and settings (tree ${tree.slice(0, 12)}); nothing changed\n`,
    );
    expect(await readFile(join(dir, 'notes.db'), 'utf8')).toBe('kept');
    // A changed shipped file: the same update restores it, and the server's file moves to its
    // data directory instead of being lost with the damaged copy.
    await chmod(join(dir, 'server.mjs'), 0o700);
    await writeFile(join(dir, 'server.mjs'), 'tampered');
    const restored = await run(['update', '.']);
    expect(restored.stderr).toBe('');
    expect(restored.stdout).toContain(
      `mcp-notes 0.2.0 is already installed (tree ${tree.slice(0, 12)}); restored its changed files\n`,
    );
    expect(restored.stdout).toContain('Restart CLAT to apply.');
    const kept = /^Files its server had added were moved to (.+)$/m.exec(restored.stdout)?.[1];
    expect(kept?.startsWith(join(sandbox.home, 'plugin-data', 'mcp-notes', 'repaired-'))).toBe(
      true,
    );
    expect(await readFile(join(kept as string, 'notes.db'), 'utf8')).toBe('kept');
    expect(await readFile(join(dir, 'server.mjs'), 'utf8')).not.toBe('tampered');

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

  it('uninstalls "." as the package the project builds', async () => {
    expect(
      (await sandbox.run(['plugin', 'install', '.', '--accept-capabilities'], { cwd: project }))
        .code,
    ).toBe(0);
    const removed = await sandbox.run(['plugin', 'uninstall', '.'], { cwd: project });
    expect(removed.stderr).toBe('');
    expect(removed.stdout).toBe('Uninstalled mcp-notes. Restart CLAT to apply.\n');
    const listed = await sandbox.run(['plugin', 'list', '--json']);
    expect(parseJsonOutput<unknown[]>(listed)).toEqual([]);
  });
});

describe('clat plugin new and its mistakes', () => {
  it('refuses a name whose tool name would not fit, an unknown kind, and names the action meant', async () => {
    // mcp_ + 50 characters + _word_count is 65: over the 64 of a tool name.
    const long = `a${'b'.repeat(49)}`;
    const refused = await sandbox.run(['plugin', 'new', 'mcp', long], { cwd: sandbox.root });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `name "${long}" is too long for a mcp plugin: its tool mcp_${long}_word_count would have 65 characters, over the 64 of a tool name; use at most 49`,
    );
    const fits = await sandbox.run(['plugin', 'new', 'mcp', long.slice(0, 49)], {
      cwd: sandbox.root,
    });
    expect(fits.code, fits.stderr).toBe(0);
    expect(fits.stdout).toContain(`mcp_${long.slice(0, 49)}_word_count`);

    const kind = await sandbox.run(['plugin', 'new', 'python', 'foo'], { cwd: sandbox.root });
    expect(kind.stderr).toContain('new: unknown kind "python"; use dsh, wasm, mcp');
    const remove = await sandbox.run(['plugin', 'remove', 'foo']);
    expect(remove.stderr).toContain('unknown action "remove"; did you mean "uninstall"?');
    const proto = await sandbox.run(['plugin', 'constructor']);
    expect(proto.stderr).toContain('unknown action "constructor"; see "clat plugin --help"');
  });
});

describe('a hand-written package whose server is JavaScript', () => {
  it('is refused by pack without "#!" or an interpreter, and packs with the setting it names', async () => {
    const dir = join(sandbox.root, 'hand-written');
    await mkdir(dir, { recursive: true });
    // Executable, but no "#!": run as a program it would go to /bin/sh ("import: not found").
    await writeFile(join(dir, 'server.mjs'), "import { stdin } from 'node:process';\n");
    await chmod(join(dir, 'server.mjs'), 0o755);
    const manifest = {
      manifestVersion: 1,
      id: 'hand-written',
      name: 'Hand written',
      version: '0.1.0',
      runtime: { kind: 'mcp-stdio', entry: 'server.mjs' },
      capabilities: { tools: true },
    };
    // A misspelt field is named with the one meant.
    const { capabilities, ...rest } = manifest;
    await writeFile(
      join(dir, 'clat-plugin.json'),
      JSON.stringify({ ...rest, capabilites: capabilities }, null, 2),
    );
    const typo = await sandbox.run(['plugin', 'pack', dir]);
    expect(typo.stderr).toContain(
      `${join(dir, 'clat-plugin.json')}: (root): unknown field(s) "capabilites" (did you mean "capabilities"?) [MANIFEST_INVALID]`,
    );
    // A misnamed entry is told apart from an unbuilt one by the files the package has.
    await writeFile(
      join(dir, 'clat-plugin.json'),
      JSON.stringify({ ...manifest, runtime: { ...manifest.runtime, entry: 'index.mjs' } }),
    );
    const misnamed = await sandbox.run(['plugin', 'pack', dir]);
    expect(misnamed.stderr).toContain(
      'runtime.entry "index.mjs" does not exist (the package has "server.mjs"); build the plugin first, or correct the name',
    );
    await writeFile(join(dir, 'clat-plugin.json'), JSON.stringify(manifest, null, 2));
    const refused = await sandbox.run(['plugin', 'pack', dir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'server.mjs is JavaScript without a "#!" line, so it cannot run as a program: set "runtime": {"interpreter": "node", …} in clat-plugin.json',
    );
    // The setting it names: pack then writes the digest and says the package is ready.
    const fixed = { ...manifest, runtime: { ...manifest.runtime, interpreter: 'node' } };
    await writeFile(join(dir, 'clat-plugin.json'), JSON.stringify(fixed, null, 2));
    // A version that is no semantic version is named with the one meant, and nothing is packed.
    const looseManifest = JSON.stringify({ ...fixed, version: '1.0' }, null, 2);
    await writeFile(join(dir, 'clat-plugin.json'), looseManifest);
    const loose = await sandbox.run(['plugin', 'pack', dir, '--output', join(dir, 'x.clatpkg')]);
    expect(loose.code).toBe(1);
    expect(loose.stderr).toContain(
      `${join(dir, 'clat-plugin.json')}: version: "1.0" is not a semantic version (MAJOR.MINOR.PATCH, as npm and MCP Bundles take it), which tells an update from a downgrade; did you mean "1.0.0"?`,
    );
    expect(existsSync(join(dir, 'x.clatpkg'))).toBe(false);
    // Refused before the digest was written: the manifest is as the author left it.
    expect(await readFile(join(dir, 'clat-plugin.json'), 'utf8')).toBe(looseManifest);
    expect(loose.stdout).toBe('');
    await writeFile(join(dir, 'clat-plugin.json'), JSON.stringify(fixed, null, 2));
    const packed = await sandbox.run(['plugin', 'pack', dir]);
    expect(packed.code, packed.stderr).toBe(0);
    expect(packed.stdout).toContain('hand-written 0.1.0 is ready');
    // Its manifest named instead of its directory is the same package.
    const inspected = await sandbox.run(['plugin', 'inspect', join(dir, 'clat-plugin.json')]);
    expect(inspected.code, inspected.stderr).toBe(0);
    expect(inspected.stdout).toMatch(/hand-written/);
  });
});
