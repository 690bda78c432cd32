import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadMcpConfig, putServerEntry, removeServerEntry } from './mcp-config-file.js';

let dir: string;
let file: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clat-mcp-config-'));
  file = join(dir, 'mcp.json');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('mcp.json edits', () => {
  it('creates a 0600 file with the wrapper shape', async () => {
    await putServerEntry(file, 'a', { command: 'node', args: ['a.js'] });
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      mcpServers: { a: { command: 'node', args: ['a.js'] } },
    });
    const { stat } = await import('node:fs/promises');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('keeps a bare map bare and unknown top-level keys in place', async () => {
    await writeFile(file, JSON.stringify({ a: { command: 'x' }, b: { url: 'https://e.com' } }));
    await putServerEntry(file, 'c', { url: 'http://127.0.0.1:1/mcp' });
    // The entry as the file held it under the lock, for the login it may leave behind.
    expect(await removeServerEntry(file, 'a')).toEqual({ command: 'x' });
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      b: { url: 'https://e.com' },
      c: { url: 'http://127.0.0.1:1/mcp' },
    });
    expect((await readdir(dir)).sort()).toEqual(['mcp.json']);
  });

  it("keeps a file's tabs, CRLF line ends and its link; accepts a byte order mark", async () => {
    await writeFile(
      file,
      '\ufeff{\r\n\t"mcpServers": {\r\n\t\t"a": {"command": "x"}\r\n\t}\r\n}\r\n',
    );
    expect((await loadMcpConfig(file)).servers.map((server) => server.name)).toEqual(['a']);
    await putServerEntry(file, 'b', { command: 'y' });
    expect(await readFile(file, 'utf8')).toBe(
      '{\r\n\t"mcpServers": {\r\n\t\t"a": {\r\n\t\t\t"command": "x"\r\n\t\t},\r\n\t\t"b": {\r\n\t\t\t"command": "y"\r\n\t\t}\r\n\t}\r\n}\r\n',
    );

    // A link (to a link) into a dotfiles directory: the file at its end changes, the links stay.
    const dotfiles = join(dir, 'dotfiles');
    await mkdir(dotfiles);
    const real = join(dotfiles, 'mcp.json');
    await writeFile(real, '{\n    "mcpServers": {}\n}\n');
    const middle = join(dir, 'middle.json');
    await symlink(real, middle);
    const linked = join(dir, 'linked.json');
    await symlink('middle.json', linked);
    await putServerEntry(linked, 'c', { command: 'z' });
    await removeServerEntry(linked, 'c');
    await putServerEntry(linked, 'd', { command: 'w' });
    expect((await lstat(linked)).isSymbolicLink()).toBe(true);
    expect((await lstat(middle)).isSymbolicLink()).toBe(true);
    expect(await readFile(real, 'utf8')).toBe(
      '{\n    "mcpServers": {\n        "d": {\n            "command": "w"\n        }\n    }\n}\n',
    );
    expect((await readdir(dotfiles)).sort()).toEqual(['mcp.json']);

    // A link to a file not yet made is written through, as a shell's `>` does.
    const dangling = join(dir, 'dangling.json');
    await symlink(join(dotfiles, 'new.json'), dangling);
    await putServerEntry(dangling, 'e', { command: 'v' });
    expect((await lstat(dangling)).isSymbolicLink()).toBe(true);
    expect(JSON.parse(await readFile(join(dotfiles, 'new.json'), 'utf8'))).toEqual({
      mcpServers: { e: { command: 'v' } },
    });
  });

  it('resolves a relative link from the real directory, as the kernel does', async () => {
    // ~/.clat is a link to dotfiles/clat, whose mcp.json links to ../shared/mcp.json.
    const dotfiles = join(dir, 'dotfiles');
    await mkdir(join(dotfiles, 'clat'), { recursive: true });
    await mkdir(join(dotfiles, 'shared'));
    await writeFile(join(dotfiles, 'shared', 'mcp.json'), '{"mcpServers":{}}\n');
    await symlink('../shared/mcp.json', join(dotfiles, 'clat', 'mcp.json'));
    const home = join(dir, 'home-clat');
    await symlink(join(dotfiles, 'clat'), home);
    await putServerEntry(join(home, 'mcp.json'), 'a', { command: 'x' });
    expect(JSON.parse(await readFile(join(dotfiles, 'shared', 'mcp.json'), 'utf8'))).toEqual({
      mcpServers: { a: { command: 'x' } },
    });
    expect((await readdir(dir)).sort()).toEqual(['dotfiles', 'home-clat']);
  });

  it('names a loop of links', async () => {
    const a = join(dir, 'a.json');
    await symlink('b.json', a);
    await symlink('a.json', join(dir, 'b.json'));
    await expect(putServerEntry(a, 'x', { command: 'x' })).rejects.toThrow(
      `${a}: more than 40 symbolic links in a row (a loop?); point it at a file`,
    );
  });

  it('validates before writing and names the field', async () => {
    await writeFile(file, '{"a":{"command":"x"}}');
    await expect(putServerEntry(file, 'b', { command: 'x', cwd: '' })).rejects.toThrow(
      /mcp\.json: b\.cwd: /,
    );
    await expect(putServerEntry(file, 'a', { command: 'y' })).rejects.toThrow(/already exists/);
    await putServerEntry(file, 'a', { command: 'y' }, { replace: true });
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ a: { command: 'y' } });
  });

  it('loads per entry: bad entries are issues, good ones still load', async () => {
    await writeFile(
      file,
      JSON.stringify({ mcpServers: { good: { command: 'x' }, bad: { command: 'x', url: 'y' } } }),
    );
    const loaded = await loadMcpConfig(file);
    expect(loaded.servers.map((server) => server.name)).toEqual(['good']);
    expect(loaded.issues).toEqual([
      {
        file,
        path: 'bad',
        message: 'entry has both "command" and "url"; choose exactly one transport',
      },
    ]);
    expect(await loadMcpConfig(join(dir, 'missing.json'))).toMatchObject({
      exists: false,
      servers: [],
      issues: [],
    });
  });
});
