/**
 * A path whose directory name holds `${` (`/tmp/dol${HOME}lar`), added with `clat mcp add`: the
 * start expands `${…}` in mcp.json, so the add writes such a `${` as `$${` (a literal `${`) and the
 * server starts from the directory named. Before, the start expanded `${HOME}` inside the path
 * and the server failed to start. A `${NAME}` typed as a reference still reads the environment.
 */
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STDIO_FIXTURES, useCliSandbox } from './support.js';

const sandbox = useCliSandbox();

describe('clat mcp add with a "${" in a path', () => {
  it('writes it literally, so the server starts from that directory; a typed reference still expands', async () => {
    const dir = join(sandbox.root, 'dol${HOME}lar');
    await mkdir(dir);
    for (const file of ['legacy.mjs', 'legacy-lib.mjs']) {
      await copyFile(join(STDIO_FIXTURES, file), join(dir, file));
    }
    const server = join(dir, 'legacy.mjs');
    const marker = `--${sandbox.marker}`;
    // Typed as an absolute path, made absolute from the directory, and read from the environment.
    const typed = await sandbox.run([
      'mcp',
      'add',
      'typed',
      '--cwd',
      dir,
      '--',
      'node',
      server,
      marker,
    ]);
    expect(typed.code, typed.stderr).toBe(0);
    expect(typed.stdout).toContain(
      `The "\${" in '${server}' is written "$\${" (a literal "\${"), so the server's start does not read it as a variable reference`,
    );
    const made = await sandbox.run(['mcp', 'add', 'made', '--', 'node', 'legacy.mjs', marker], {
      cwd: dir,
    });
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain(
      `legacy.mjs → ${join(sandbox.root, 'dol$${HOME}lar', 'legacy.mjs')}`,
    );
    const reference = await sandbox.run([
      'mcp',
      'add',
      'reference',
      '--',
      'node',
      '${FIXTURE_DIR}/legacy.mjs',
      marker,
    ]);
    expect(reference.code, reference.stderr).toBe(0);
    const written = join(sandbox.root, 'dol$${HOME}lar', 'legacy.mjs');
    expect(await sandbox.readMcp()).toEqual({
      mcpServers: {
        typed: { command: 'node', args: [written, marker], cwd: dir },
        made: { command: 'node', args: [written, marker] },
        reference: { command: 'node', args: ['${FIXTURE_DIR}/legacy.mjs', marker] },
      },
    });

    const tools = await sandbox.run(['tools', '--trust'], {
      env: { FIXTURE_DIR: STDIO_FIXTURES },
      timeoutMs: 60_000,
    });
    expect(tools.code, tools.stderr).toBe(0);
    for (const name of ['typed', 'made', 'reference']) {
      expect(tools.stdout).toContain(`mcp_${name}_echo`);
    }
  });
});
