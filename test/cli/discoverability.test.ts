/**
 * Day-one discoverability through the real binary: `clat tools <server|tool>` signatures,
 * `clat call` with key=value arguments, one-shot commands that start only the servers they
 * need, `clat mcp` exit codes, and the bash completion script.
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLAT_BIN, CLI_FIXTURES, REPO_ROOT, useCliSandbox } from './support.js';

let spawnedMarker: string;

const sandbox = useCliSandbox(async () => {
  spawnedMarker = join(sandbox.root, 'other-was-spawned');
  await sandbox.writeMcp({
    mcpServers: {
      notes: sandbox.notesServer(),
      // Proves by a file whether it was started at all (then exits: a failed server).
      other: sandbox.node(join(CLI_FIXTURES, 'touch-and-exit.mjs'), spawnedMarker),
    },
  });
});

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

describe('tool signatures and key=value calls', () => {
  it('shows one server with signatures and starts only that server', async () => {
    const result = await sandbox.run(['tools', 'notes', '--trust']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      'mcp_notes_add_note(title: string, body: string, tags?: string[])',
    );
    expect(result.stdout).toContain('effect: write   source: mcp:notes');
    expect(result.stdout).toContain('Store a new note with a title, a body and optional tags.');
    expect(result.stdout).toContain('    title (required): string');
    expect(result.stdout).not.toContain('read_file(');
    expect(await exists(spawnedMarker)).toBe(false);

    const one = await sandbox.run(['tools', 'mcp_notes_list_notes', '--trust']);
    expect(one.stdout.trim().split('\n')[0]).toBe(
      'mcp_notes_list_notes(tag?: string, limit?: integer)',
    );
    expect(await exists(spawnedMarker)).toBe(false);

    // Every "no such server or tool" exits 1 (not found), and names the status that lists all.
    const missing = await sandbox.run(['tools', 'nothing_here', '--trust']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(
      'no server or tool named "nothing_here"; run "clat tools --trust" for the list',
    );
    for (const args of [
      ['tools', '--server', 'nosuch'],
      ['resources', 'nosuch'],
    ]) {
      const unknown = await sandbox.run([...args, '--trust']);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain(
        'no server named "nosuch" is mounted; "clat mcp --trust" shows every server (mcp.json, installed plugins, plugins.json, the GLM pack)',
      );
    }
  });

  it('calls with key=value arguments typed by the schema, starting only the owner', async () => {
    const added = await sandbox.run(
      ['call', 'mcp_notes_add_note', 'title=Day one', 'body=typed args', 'tags=["x"]', '--trust'],
      { timeoutMs: 60_000 },
    );
    expect(added.code, added.stderr).toBe(0);
    const listed = await sandbox.run(['call', 'mcp_notes_list_notes', 'limit=5', '--trust']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('Day one');
    expect(await exists(spawnedMarker)).toBe(false);

    const wrong = await sandbox.run(['call', 'mcp_notes_list_notes', 'limit=many', '--trust']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('clat call: limit="many" is not a valid integer');
    const unknown = await sandbox.run(['call', 'mcp_notes_list_notes', 'nope=1', '--trust']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('the tool has no argument "nope"');

    // A native tool starts no server at all.
    const native = await sandbox.run(['call', 'read_file', 'path=README.md', '--trust']);
    expect(native.code, native.stderr).toBe(0);
    expect(native.stdout).toContain('# e2e project');
    expect(await exists(spawnedMarker)).toBe(false);
  });

  it("names CLAT's tool for Claude Code's mcp__server__tool, starting only that server", async () => {
    const result = await sandbox.run(['call', 'mcp__notes__list_notes', '{}', '--trust']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'is not registered (did you mean "mcp_notes_list_notes"? CLAT names a server\'s tools mcp_<server>_<tool>)',
    );
    expect(await exists(spawnedMarker)).toBe(false);
    const called = await sandbox.run(['call', 'mcp_notes_list_notes', '{}', '--trust']);
    expect(called.code, called.stderr).toBe(0);
  });

  it('clat mcp starts everything and exits 1 when a configured server failed', async () => {
    const result = await sandbox.run(['mcp', '--trust']);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/1 failed/);
    expect(await exists(spawnedMarker)).toBe(true);
  });

  it('clat tools names each server missing from the list, with a status command that works', async () => {
    const result = await sandbox.run(['tools', '--trust']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('mcp_notes_add_note');
    // The project is trusted for this run only: a bare `clat mcp` would refuse it.
    expect(result.stderr).toBe(
      'clat: server "other" is failed; run "clat mcp --trust" for details\n',
    );
    expect((await sandbox.run(['mcp'])).stderr).toContain('is not trusted');
    const status = await sandbox.run(hintedCommand(result.stderr));
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(/other .* failed/);

    // From another directory, the command names the project as this run did.
    const elsewhere = await sandbox.run(['tools', '-C', sandbox.project, '--trust'], {
      cwd: sandbox.root,
    });
    expect(elsewhere.stderr).toBe(
      `clat: server "other" is failed; run "clat mcp -C ${sandbox.project} --trust" for details\n`,
    );
    const there = await sandbox.run(hintedCommand(elsewhere.stderr), { cwd: sandbox.root });
    expect(there.stdout).toMatch(/other .* failed/);

    // With --json, stdout is the exact JSON and the missing server is named on stderr as well.
    const json = await sandbox.run(['tools', '--json', '--trust']);
    expect(json.code).toBe(0);
    expect(json.stderr).toBe(
      'clat: server "other" is failed; run "clat mcp --trust" for details\n',
    );
    expect(JSON.parse(json.stdout).tools.map((tool: { name: string }) => tool.name)).toContain(
      'mcp_notes_add_note',
    );
  });
});

/** The arguments of the `clat …` a stderr line tells a person to run (plain words only). */
function hintedCommand(stderr: string): string[] {
  const command = /run "clat ([^"]+)" for details/.exec(stderr)?.[1];
  if (command === undefined) throw new Error(`no command in: ${stderr}`);
  return command.split(' ');
}

describe('clat completion', () => {
  it('bash completes commands, subcommands, flags, mcp.json server names and plugin ids', async () => {
    const script = join(sandbox.root, 'clat.bash');
    const result = await sandbox.run(['completion', 'bash']);
    expect(result.code).toBe(0);
    await writeFile(script, result.stdout);
    // `clat` on PATH, as a user has it, for the server-name lookup.
    const bin = join(sandbox.root, 'bin');
    await mkdir(bin);
    await writeFile(
      join(bin, 'clat'),
      `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLAT_BIN)} "$@"\n`,
    );
    await chmod(join(bin, 'clat'), 0o755);
    const complete = (...words: string[]): string[] =>
      execFileSync(
        'bash',
        [
          '-c',
          `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _clat; printf '%s\\n' "\${COMPREPLY[@]}"`,
          'complete',
          script,
          ...words,
        ],
        {
          encoding: 'utf8',
          env: { PATH: `${bin}:${process.env.PATH ?? ''}`, CLAT_HOME: sandbox.home },
        },
      )
        .split('\n')
        .filter((line) => line !== '');
    expect(complete('clat', 'mc')).toEqual(['mcp']);
    expect(complete('clat', 'mcp', '')).toEqual(
      expect.arrayContaining(['status', 'list', 'get', 'add', 'remove', 'import']),
    );
    expect(complete('clat', 'plugin', 'ins')).toEqual(['inspect', 'install']);
    // Every subcommand, including those on wrapped lines or given as `enable|disable`; a
    // placeholder (`clat trust [<dir>]`) is no subcommand.
    expect(complete('clat', 'mcp', 'dis')).toEqual(['disable']);
    expect(complete('clat', 'plugin', '')).toEqual(
      expect.arrayContaining(['update', 'rollback', 'repair', 'uninstall', 'list', 'pack']),
    );
    expect(complete('clat', 'trust', '')).toEqual([]);
    expect(complete('clat', 'completion', '')).toEqual(['bash', 'zsh', 'fish']);
    // Installed package ids after the actions that take one.
    const packageDir = join(REPO_ROOT, 'plugins/mcp-notes/dist/package');
    expect(
      (await sandbox.run(['plugin', 'install', packageDir, '--accept-capabilities'])).code,
    ).toBe(0);
    expect(complete('clat', 'plugin', 'uninstall', '')).toEqual(['mcp-notes']);
    expect(complete('clat', 'plugin', 'configure', '')).toEqual(['mcp-notes']);
    expect(complete('clat', 'plugin', 'install', 'mcp-')).toEqual([]);
    expect(complete('clat', 'tools', '--')).toEqual(
      expect.arrayContaining(['--json', '--server', '--trust']),
    );
    expect(complete('clat', 'mcp', 'get', '')).toEqual(['notes', 'other']);
  });

  it('prints zsh and fish scripts and refuses an unknown shell', async () => {
    const zsh = await sandbox.run(['completion', 'zsh']);
    expect(zsh.stdout.split('\n')[0]).toBe('#compdef clat');
    expect(zsh.stdout).toContain('bashcompinit');
    const fish = await sandbox.run(['completion', 'fish']);
    expect(fish.stdout).toContain('complete -c clat -n __fish_use_subcommand -a "chat exec mcp');
    const bad = await sandbox.run(['completion', 'tcsh']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('name one shell: bash, zsh or fish (got "tcsh")');
    expect(await readFile(join(sandbox.home, 'mcp.json'), 'utf8')).toContain('notes');
  });
});

describe('unknown options', () => {
  it('names the option and a --help that works, never the `--` workaround', async () => {
    for (const [args, command] of [
      [['tools', '--bogus'], 'tools'],
      [['mcp', 'add', 'x', '--bogus', '--', 'node'], 'mcp add'],
      [['mcp', 'login', 'x', '--bogus'], 'mcp login'],
      [['plugin', 'list', '--bogus=1'], 'plugin'],
      [['trust', '-z'], 'trust'],
    ] as const) {
      const option = args.find((arg) => arg.startsWith('-') && arg !== '--')?.split('=')[0];
      const result = await sandbox.run([...args]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `unknown option "${option}" for clat ${command}; see "clat ${command} --help"`,
      );
      expect(result.stderr).not.toContain('positional argument');
      const help = await sandbox.run([...command.split(' '), '--help']);
      expect(help.code, `clat ${command} --help`).toBe(0);
      expect(help.stdout).toMatch(/^Usage: clat /);
    }
  });
});
