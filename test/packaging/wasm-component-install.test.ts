/**
 * Digests are computed, never hand-edited: a bare `.wasm` component installs as a package with
 * `clat plugin install <file.wasm>` (manifest generated from its imports), and `clat plugin pack`
 * writes the entry digest into a package directory's manifest after a rebuild. Both through the
 * real `clat` binary, ending in a tool call.
 */
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareComponent, wasmCacheDir } from '@clat/adapter-wasm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliSandbox, parseJsonOutput, shownCommandArgs } from '../cli/support.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const COMPONENT = join(REPO_ROOT, 'plugins/wasm-summarize/dist/plugin.wasm');

let sandbox: CliSandbox;
beforeEach(async () => {
  sandbox = new CliSandbox();
  await sandbox.setup();
  // Warm the jco transpile cache: the first run waits for the surface only so long.
  await prepareComponent({ componentPath: COMPONENT, cacheDir: wasmCacheDir(sandbox.home) });
});
afterEach(async () => {
  await sandbox.cleanup();
});

describe('clat plugin install <file.wasm>', () => {
  it('packages the component with a computed digest and the capabilities its imports need', async () => {
    const file = join(sandbox.root, 'Word Tools.wasm');
    await copyFile(COMPONENT, file);
    const refused = await sandbox.run(['plugin', 'install', file, '--host-tools', 'read_file']);
    expect(refused.code).toBe(3);
    // The SDK's guests import every host interface; a manifest (clat plugin pack) can narrow that.
    expect(refused.stderr).toContain(
      'requests capabilities tools, sampling, elicitation, hostContext, hostTools.read_file;',
    );

    const bad = await sandbox.run(['plugin', 'install', file, '--host-tools', 'rm_rf']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--host-tools names "rm_rf", which is not a host tool');
    const badId = await sandbox.run(['plugin', 'install', file, '--id', 'Bad Id']);
    expect(badId.code).toBe(2);
    expect(badId.stderr).toContain('--id "Bad Id" must be a lowercase id');
    expect(badId.stderr).not.toContain('clat-plugin.json');

    // inspect takes the bare component as install does: what install would generate for it.
    const inspected = await sandbox.run(['plugin', 'inspect', file, '--json']);
    expect(inspected.code, inspected.stderr).toBe(0);
    expect(parseJsonOutput<{ id: string; runtime: string }>(inspected)).toMatchObject({
      id: 'word-tools',
      runtime: 'wasm-component',
    });

    const installed = await sandbox.run([
      'plugin',
      'install',
      file,
      '--host-tools',
      'read_file',
      '--accept-capabilities',
    ]);
    expect(installed.code, installed.stderr).toBe(0);
    const sha = createHash('sha256')
      .update(await readFile(COMPONENT))
      .digest('hex');
    expect(installed.stdout).toContain(`Installed word-tools 0.0.0+${sha.slice(0, 12)}`);
    const listed = parseJsonOutput<{ id: string; runtime: string }[]>(
      await sandbox.run(['plugin', 'list', '--json']),
    );
    expect(listed).toEqual([
      expect.objectContaining({ id: 'word-tools', runtime: 'wasm-component' }),
    ]);

    expect((await sandbox.run(['trust'])).code).toBe(0);
    const counted = await sandbox.run([
      'call',
      'wasm_word_tools_word_count',
      JSON.stringify({ text: 'one two' }),
    ]);
    expect(counted.code, counted.stderr).toBe(0);
    expect(JSON.parse(counted.stdout)).toEqual({ words: 2 });
    const invalid = await sandbox.run(['call', 'wasm_word_tools_word_count', '{}']);
    expect(invalid.code).not.toBe(0);
    expect(invalid.stderr).toContain(
      'invalid arguments for wasm_word_tools_word_count: field "text" is required',
    );
  });

  it('refuses a file that is not a component, naming it', async () => {
    const file = join(sandbox.root, 'core.wasm');
    await writeFile(file, Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]));
    const result = await sandbox.run(['plugin', 'install', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${file} is not a WebAssembly component`);
  });
});

describe('clat plugin pack <dir>', () => {
  it('writes the entry digest after every rebuild, then the directory installs', async () => {
    // A directory a shell would split: the install command pack prints must quote it.
    const dir = join(sandbox.root, "my plugin's pkg");
    await mkdir(join(dir, 'dist'), { recursive: true });
    await copyFile(COMPONENT, join(dir, 'dist/plugin.wasm'));
    await writeFile(
      join(dir, 'clat-plugin.json'),
      JSON.stringify({
        manifestVersion: 1,
        id: 'summarize',
        name: 'Summarize',
        version: '1.0.0',
        runtime: { kind: 'wasm-component', entry: 'dist/plugin.wasm' },
        capabilities: { tools: true, sampling: true, hostContext: true, hostTools: ['read_file'] },
      }),
    );
    const before = await sandbox.run(['plugin', 'install', dir, '--accept-capabilities']);
    expect(before.code).toBe(1);
    // The manifest by its full path, what is wrong in words, and the command that fixes it.
    expect(before.stderr).toContain(
      `${join(dir, 'clat-plugin.json')}: runtime.sha256: is missing: the sha256 of the entry file; run "clat plugin pack `,
    );
    const fix =
      /run "(clat plugin pack .*)" to write the entry's digest/.exec(before.stderr)?.[1] ?? '';
    expect(shownCommandArgs(fix)).toEqual(['plugin', 'pack', dir]);

    const packed = await sandbox.run(shownCommandArgs(fix));
    expect(packed.code, packed.stderr).toBe(0);
    const sha = createHash('sha256')
      .update(await readFile(COMPONENT))
      .digest('hex');
    expect(packed.stdout).toContain(`Wrote runtime.sha256 ${sha} (dist/plugin.wasm)`);
    const again = await sandbox.run(['plugin', 'pack', dir]);
    expect(again.stdout).toContain(`Checked runtime.sha256 ${sha}`);

    // The install command pack names works pasted as shown.
    const shown = /is ready: (clat .*)$/m.exec(again.stdout)?.[1] ?? '';
    expect(shownCommandArgs(shown)).toEqual(['plugin', 'install', dir]);
    const installed = await sandbox.run([...shownCommandArgs(shown), '--accept-capabilities']);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain('Installed summarize 1.0.0');
  });
});
