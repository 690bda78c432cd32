/**
 * A CLAT home that is not fresh, through the real `clat` binary: a config.json or plugins.json
 * that a newer CLAT wrote, or that is empty, truncated or a directory, costs only what depends on
 * it; trust.json entries count only as `clat trust` writes them, and a broken trust.json names
 * itself and the way out; a dangling mcp.json link is named, and its target's tree not created.
 */
import { spawnSync } from 'node:child_process';
import { chmod, mkdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliSandbox } from './support.js';

const sandbox = useCliSandbox();

/** One notes server in mcp.json, so `clat tools` has something to list. */
async function withNotes(): Promise<void> {
  await sandbox.writeMcp({ mcpServers: { notes: sandbox.notesServer() } });
}

const PROVIDER = {
  kind: 'openai-compatible',
  baseUrl: 'http://127.0.0.1:1/v1',
  model: 'm',
  apiKey: 'k-0123456789',
};

describe('a config.json problem', () => {
  it('is a warning for clat tools, clat mcp and clat call, and an error for clat exec', async () => {
    await withNotes();
    const configFile = join(sandbox.home, 'config.json');
    // A field a newer CLAT might write.
    await sandbox.writeConfig({ provider: { ...PROVIDER, reasoning: { effort: 'high' } } });
    const warning = `clat: config: ${configFile}: provider: unknown field(s) "reasoning"`;
    for (const args of [
      ['tools', '--trust'],
      ['mcp', '--trust'],
      ['call', 'mcp_notes_list_notes', '{}', '--trust'],
    ]) {
      const result = await sandbox.run(args);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(result.stderr.split(warning).length - 1, result.stderr).toBe(1);
    }
    const exec = await sandbox.run(['exec', '--trust', 'hello']);
    expect(exec.code).toBe(1);
    expect(exec.stderr).toContain(
      `clat: ${configFile}: provider: unknown field(s) "reasoning" [CLI_CONFIG_INVALID]`,
    );
    // The session starts, says so once, runs tools, and only a model turn refuses, naming why.
    const session = await sandbox.run(['chat', '--trust'], {
      input: '/call mcp_notes_list_notes\nhello\n',
    });
    expect(session.code, session.stderr).toBe(0);
    expect(session.stderr.split(warning).length - 1, session.stderr).toBe(1);
    expect(session.stdout).toContain('running mcp_notes_list_notes');
    expect(session.stdout).toContain(
      `the model cannot be used until ${configFile} is fixed: ${configFile}: provider: unknown field(s) "reasoning"; /call <tool> [json | key=value ...] works meanwhile`,
    );
  });

  it('an empty file, a directory or an unset key variable does not stop clat tools', async () => {
    await withNotes();
    const configFile = join(sandbox.home, 'config.json');
    await writeFile(configFile, '');
    const empty = await sandbox.run(['tools', '--trust']);
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stdout).toContain('add_note');
    expect(empty.stderr).toContain(`clat: config: ${configFile}: not valid JSON`);

    await rm(configFile);
    await mkdir(configFile);
    const directory = await sandbox.run(['tools', '--trust']);
    expect(directory.code, directory.stderr).toBe(0);
    expect(directory.stderr).toContain(`clat: config: ${configFile}: cannot be read`);

    await rm(configFile, { recursive: true });
    await sandbox.writeConfig({
      provider: { kind: 'openai-compatible', vendor: 'glm', model: 'm', apiKeyEnv: 'NOT_SET_X' },
    });
    const unset = await sandbox.run(['tools', '--trust']);
    expect(unset.code, unset.stderr).toBe(0);
    expect(unset.stderr).toContain('environment variable NOT_SET_X is not set or empty');
  });
});

describe('a damaged plugins.json', () => {
  it('is a config issue: its plugins are skipped and the other tools still list', async () => {
    await withNotes();
    const pluginsFile = join(sandbox.home, 'plugins.json');
    for (const damage of ['', '{"echo": {"path": "e']) {
      await writeFile(pluginsFile, damage);
      const result = await sandbox.run(['tools', '--trust']);
      expect(result.stdout, result.stderr).toContain('add_note');
      expect(result.stderr).toContain(`clat: config: ${pluginsFile}: (root): is not valid JSON`);
      expect(result.stderr).not.toContain('WASM_CONFIG_INVALID');
    }
    await rm(pluginsFile);
    await mkdir(pluginsFile);
    const directory = await sandbox.run(['tools', '--trust']);
    expect(directory.stdout, directory.stderr).toContain('add_note');
    expect(directory.stderr).toContain(`${pluginsFile}: (root): cannot be read`);
  });
});

describe('trust.json', () => {
  const trustFile = () => join(sandbox.home, 'trust.json');
  const spawnedFile = () => join(sandbox.root, 'spawned');

  /** A server whose only effect is to show it was started. */
  async function withProbe(): Promise<void> {
    const probe = join(import.meta.dirname, 'fixtures', 'touch-and-exit.mjs');
    await sandbox.writeMcp({ mcpServers: { probe: sandbox.node(probe, spawnedFile()) } });
  }

  it('trusts nothing by an entry whose value is false or null, or whose key is relative', async () => {
    await withProbe();
    for (const value of [false, null, {}]) {
      await writeFile(
        trustFile(),
        JSON.stringify({
          version: 1,
          projects: {
            [sandbox.project]: value,
            project: {},
            // Absolute but not as a lookup writes it: it would never match, nor be removable.
            [`${sandbox.project}/`]: { trustedAt: '2026-01-01T00:00:00.000Z' },
          },
        }),
      );
      const result = await sandbox.run(['tools']);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`project ${sandbox.project} is not trusted`);
      expect(result.stderr).toContain(`clat trust --remove ${sandbox.project}`);
      await expect(stat(spawnedFile())).rejects.toThrow();
    }
    const listed = await sandbox.run(['trust', '--list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toBe('');
    expect(listed.stderr).toContain(`projects: "project" is not an absolute path`);
    expect(listed.stderr).toContain(
      `projects: ${JSON.stringify(`${sandbox.project}/`)} is not a canonical path (a trailing slash, "." or ".." parts), so it trusts nothing; remove it from the file`,
    );
    expect(listed.stderr).toContain(`projects: ${JSON.stringify(sandbox.project)} is not trusted`);
    // The way forward named works: the entry goes, and `clat trust` records a real one.
    const removed = await sandbox.run(['trust', '--remove', sandbox.project]);
    expect(removed.stdout).toBe(`Trust revoked: ${sandbox.project}\n`);
    expect((await sandbox.run(['trust'])).code).toBe(0);
    expect((await sandbox.run(['trust', '--list'])).stdout).toBe(`${sandbox.project}\n`);
  });

  it('as a directory is named', async () => {
    await mkdir(trustFile());
    const result = await sandbox.run(['trust', '--list']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `clat: ${trustFile()}: cannot be read: it is a directory, not a file; move it out of the way [CLI_CONFIG_INVALID]\n`,
    );
  });

  it('empty or truncated names a way out, and deleting it works', async () => {
    for (const damage of ['', '{"version":1,"proj']) {
      await writeFile(trustFile(), damage);
      const result = await sandbox.run(['trust', '--list']);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /: not valid JSON \(.*\); fix it by hand, or delete it to forget every trusted project \[CLI_CONFIG_INVALID\]\n$/,
      );
    }
    await rm(trustFile());
    expect((await sandbox.run(['trust'])).code).toBe(0);
    expect((await sandbox.run(['trust', '--list'])).stdout).toBe(`${sandbox.project}\n`);
  });

  it.runIf(process.getuid?.() === 0 && spawnSync('setpriv', ['--help']).status === 0)(
    'unreadable is reported as a failed read of that file',
    async () => {
      await writeFile(trustFile(), '{"version":1,"projects":{}}\n', { mode: 0o600 });
      await chmod(sandbox.root, 0o755);
      await chmod(sandbox.home, 0o755);
      const result = spawnSync(
        'setpriv',
        [
          '--reuid=65534',
          '--regid=65534',
          '--clear-groups',
          process.execPath,
          join(import.meta.dirname, '../../apps/clat/bin/clat.js'),
          'trust',
          '--list',
        ],
        { env: sandbox.env(), cwd: '/', encoding: 'utf8' },
      );
      expect(result.stderr).toBe(
        `clat: cannot read ${trustFile()}: permission denied (EACCES); it belongs to uid 0 with mode 0600 and clat runs as uid 65534: give it back to the user who runs clat (chown) with mode 0600, or run clat as its owner [CLI_CONFIG_INVALID]\n`,
      );
    },
  );
});

describe('a dangling mcp.json link', () => {
  it('is named by clat mcp list, and clat mcp add creates no directories for its target', async () => {
    const target = join(sandbox.root, 'dotfiles', 'clat', 'mcp.json');
    const mcpFile = join(sandbox.home, 'mcp.json');
    await symlink(target, mcpFile);
    const listed = await sandbox.run(['mcp', 'list']);
    expect(listed.stdout).toContain(`${mcpFile} (is a link to ${target}, which does not exist)`);
    const added = await sandbox.run(['mcp', 'add', 'x', '--', 'node', 'server.mjs']);
    expect(added.code).toBe(1);
    expect(added.stderr).toContain(
      `${mcpFile} is a link to ${target}, whose directory does not exist; create ${join(sandbox.root, 'dotfiles', 'clat')} or point the link at an existing file`,
    );
    await expect(stat(join(sandbox.root, 'dotfiles'))).rejects.toThrow();
    // A link whose target's directory exists is written through, as before.
    await mkdir(join(sandbox.root, 'dotfiles', 'clat'), { recursive: true });
    expect((await sandbox.run(['mcp', 'add', 'x', '--', 'node', 'server.mjs'])).code).toBe(0);
    expect(JSON.parse(await readFile(target, 'utf8'))).toHaveProperty('mcpServers.x');
  });
});
