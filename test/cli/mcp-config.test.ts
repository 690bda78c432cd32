/**
 * `clat mcp add|remove|list|get` against a real mcp.json, and per-entry validation when the
 * project mounts: a bad entry is named by file and field, the rest still mount.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cp, mkdir, readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NOTES_SERVER, parseJsonOutput, shownCommandArgs, useCliSandbox } from './support.js';

const sandbox = useCliSandbox();

describe('clat mcp add/remove/list/get', () => {
  it('edits the wrapper shape in place and keeps unknown keys and other entries', async () => {
    await sandbox.writeMcp({
      $schema: 'https://example.com/mcp.schema.json',
      mcpServers: { keep: { command: 'keep-me', args: ['x'], disabledNote: 'unknown key kept' } },
      editorSettings: { tabSize: 2 },
    });
    const added = await sandbox.run([
      'mcp',
      'add',
      'notes',
      '--env',
      'MCP_NOTES_DIR=/tmp/n',
      '--',
      'node',
      'server.mjs',
      '--flag',
    ]);
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    const http = await sandbox.run([
      'mcp',
      'add',
      'web',
      '--url',
      'https://example.com/mcp',
      '--header',
      'Authorization: Bearer sk-secretsecret1234',
    ]);
    expect(http.code).toBe(0);
    expect(await sandbox.readMcp()).toEqual({
      $schema: 'https://example.com/mcp.schema.json',
      mcpServers: {
        keep: { command: 'keep-me', args: ['x'], disabledNote: 'unknown key kept' },
        notes: {
          command: 'node',
          args: ['server.mjs', '--flag'],
          env: { MCP_NOTES_DIR: '/tmp/n' },
        },
        web: {
          url: 'https://example.com/mcp',
          headers: { Authorization: 'Bearer sk-secretsecret1234' },
        },
      },
      editorSettings: { tabSize: 2 },
    });
    // No temp files left behind by the atomic writes.
    expect((await readdir(sandbox.home)).filter((name) => name.endsWith('.tmp'))).toEqual([]);

    const listed = await sandbox.run(['mcp', 'list']);
    expect(listed.stdout).toContain('notes  stdio  node server.mjs --flag');
    expect(listed.stdout).toContain('web  http  https://example.com/mcp headers: Authorization');
    expect(listed.stdout).not.toContain('sk-secretsecret1234');
    // The "keep" entry has an unknown key, which the kernel schema rejects: reported, not hidden.
    expect(listed.stderr).toContain('keep: unknown field(s) "disabledNote"');

    const debug = await sandbox.run(['mcp', 'get', 'notes']);
    expect(debug.stdout).toContain(
      `to debug, run it by hand: cd ${sandbox.home} && MCP_NOTES_DIR=… node server.mjs --flag`,
    );

    const got = parseJsonOutput<Record<string, unknown>>(
      await sandbox.run(['mcp', 'get', 'web', '--json']),
    );
    expect(got).toEqual({
      name: 'web',
      transport: 'http',
      url: 'https://example.com/mcp',
      headers: ['Authorization'],
      origin: 'user',
    });

    const removed = await sandbox.run(['mcp', 'remove', 'notes']);
    expect(removed.code).toBe(0);
    const after = (await sandbox.readMcp()) as { mcpServers: Record<string, unknown> };
    expect(Object.keys(after.mcpServers)).toEqual(['keep', 'web']);

    const again = await sandbox.run(['mcp', 'remove', 'notes']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('no server named "notes"');
  });

  it('refuses an invalid entry with the field named, leaving the file untouched', async () => {
    await sandbox.writeMcp({ a: { command: 'x' } });
    const before = await readFile(join(sandbox.home, 'mcp.json'), 'utf8');
    // Errors about typed flags name the flag, not a field of mcp.json (which is untouched).
    const mcpFile = join(sandbox.home, 'mcp.json');
    const bad = await sandbox.run(['mcp', 'add', 'web', '--url', 'ftp://example.com']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      `clat: clat mcp add: --url: must use http or https; nothing was written to ${mcpFile} [CLI_USAGE]\n`,
    );
    const both = await sandbox.run(['mcp', 'add', 'mix', '--url', 'https://e.com', '--', 'node']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('choose exactly one transport');
    const dup = await sandbox.run(['mcp', 'add', 'a', '--', 'other']);
    expect(dup.code).toBe(2);
    expect(dup.stderr).toContain('already exists');
    // What every start would refuse is refused before it is written, naming the field.
    const url = 'http://127.0.0.1:9/mcp';
    const badName = await sandbox.run([
      'mcp',
      'add',
      'h1',
      '--url',
      url,
      '--header',
      'Bad Name: x',
    ]);
    expect(badName.stderr).toContain(
      'clat mcp add: --header "Bad Name": header name "Bad Name" is not a valid HTTP token; nothing was written',
    );
    const badValue = await sandbox.run([
      'mcp',
      'add',
      'h2',
      '--url',
      url,
      '--header',
      'X-A: one\ntwo',
    ]);
    expect(badValue.stderr).toContain(
      '--header "X-A": header "X-A" has a value with line breaks or non-Latin-1 characters',
    );
    expect(badValue.stderr).not.toContain('two');
    const userinfo = await sandbox.run([
      'mcp',
      'add',
      'h3',
      '--url',
      'http://me:s3cr3t@127.0.0.1:9/mcp',
    ]);
    expect(userinfo.stderr).toContain('--url must not embed credentials (user:password@)');
    expect(userinfo.stderr).not.toContain('s3cr3t');
    const noAscii = await sandbox.run(['mcp', 'add', '日本語', '--', 'node']);
    expect(noAscii.stderr).toContain('server name "日本語" needs an ASCII letter or digit');
    expect((await sandbox.run(['mcp', 'add', 'team docs', '--', 'node'])).code).toBe(0);
    const twin = await sandbox.run(['mcp', 'add', 'team_docs', '--', 'node']);
    expect(twin.stderr).toContain(
      'server name "team_docs" gives the same tool names as "team docs" (mcp_team_docs_…); choose another name',
    );
    // Headers fetch or the MCP transport set themselves, and a header given twice.
    const headerCases: Array<[string[], string]> = [
      [
        ['Content-Length: 5'],
        '--header "Content-Length": header "Content-Length" is set by the HTTP client for each request (fetch refuses or mismatches a configured one); remove it',
      ],
      [
        ['Host: evil'],
        '--header "Host" cannot be configured: the HTTP client sets it (Host from --url)',
      ],
      [
        ['Mcp-Session-Id: s1'],
        `--header "Mcp-Session-Id" cannot be configured: CLAT's MCP transport sets it`,
      ],
      [
        ['X-A: 1', 'x-a: 2'],
        '--header "x-a" repeats "X-A" (header names ignore case); give it once',
      ],
      [
        ['X-A: 1', 'X-A: 2'],
        '--header "X-A" is given twice (the second would replace the first); give it once',
      ],
    ];
    for (const [headers, message] of headerCases) {
      const run = await sandbox.run([
        'mcp',
        'add',
        'h4',
        '--url',
        url,
        ...headers.flatMap((header) => ['--header', header]),
      ]);
      expect(run.stderr).toContain(message);
      expect(run.code).toBe(2);
    }
    const envTwice = await sandbox.run([
      'mcp',
      'add',
      'e1',
      '--env',
      'A=1',
      '--env',
      'A=2',
      '--',
      'node',
    ]);
    expect(envTwice.stderr).toContain('--env "A" is given twice');
    const emptyCwd = await sandbox.run(['mcp', 'add', 'e2', '--cwd', '', '--', 'node']);
    expect(emptyCwd.stderr).toContain(
      'clat mcp add: --cwd: must not be empty; nothing was written',
    );
    for (const refused of [badName, badValue, userinfo, noAscii, twin, envTwice, emptyCwd]) {
      expect(refused.code).not.toBe(0);
    }
    expect((await sandbox.run(['mcp', 'remove', 'team docs'])).code).toBe(0);
    expect(await readFile(join(sandbox.home, 'mcp.json'), 'utf8')).toBe(before);
  });

  it('shows commands shell-quoted, so the debug line pasted into a shell runs the same words', async () => {
    const script = join(sandbox.root, 'dir with space', 'echo-args.mjs');
    await mkdir(join(sandbox.root, 'dir with space'));
    const out = join(sandbox.root, 'args.json');
    await writeFile(
      script,
      `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(out)}, JSON.stringify(process.argv.slice(2)));\n`,
    );
    const args = ['a b', '$HOME', "it's", 'x;y'];
    expect(
      (await sandbox.run(['mcp', 'add', 'sp', '--', process.execPath, script, ...args])).code,
    ).toBe(0);
    const got = await sandbox.run(['mcp', 'get', 'sp']);
    const shown = /to debug, run it by hand: (.*)$/m.exec(got.stdout)?.[1] ?? '';
    expect(shown).toContain("'a b' '$HOME' 'it'\\''s' 'x;y'");
    execFileSync('sh', ['-c', shown]);
    expect(JSON.parse(await readFile(out, 'utf8'))).toEqual(args);
    expect((await sandbox.run(['mcp', 'list'])).stdout).toContain("'a b' '$HOME'");
  });

  it('makes paths typed relative to here absolute, since servers run in the CLAT home', async () => {
    // The server a person just wrote, in the project they are in.
    await cp(join(NOTES_SERVER, '..'), join(sandbox.project, 'notes-server'), { recursive: true });
    const added = await sandbox.run([
      'mcp',
      'add',
      'rel',
      '--env',
      `MCP_NOTES_DIR=${join(sandbox.root, 'notes')}`,
      '--',
      process.execPath,
      './notes-server/server.mjs',
      `--${sandbox.marker}`,
      '--log=./notes.log',
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain(
      `Relative paths were made absolute, since servers run in ${sandbox.home}: ./notes-server/server.mjs → ${join(sandbox.project, 'notes-server/server.mjs')}, --log=./notes.log → --log=${join(sandbox.project, 'notes.log')}\n`,
    );
    const servers = (
      (await sandbox.readMcp()) as { mcpServers: Record<string, { args: string[] }> }
    ).mcpServers;
    expect(servers.rel?.args[0]).toBe(join(sandbox.project, 'notes-server/server.mjs'));
    expect(servers.rel?.args[2]).toBe(`--log=${join(sandbox.project, 'notes.log')}`);
    const tools = await sandbox.run(['tools', 'rel', '--trust']);
    expect(tools.code, tools.stderr).toBe(0);
    expect(tools.stdout).toContain('mcp_rel_add_note(');
  });

  it('passes -h and --help after -- to the server command, not to clat', async () => {
    const added = await sandbox.run([
      'mcp',
      'add',
      'pg',
      '--',
      'postgres-mcp',
      '-h',
      'localhost',
      '--help',
    ]);
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    const got = await sandbox.run(['mcp', 'get', 'pg', '--json']);
    expect(JSON.parse(got.stdout)).toMatchObject({
      command: 'postgres-mcp',
      args: ['-h', 'localhost', '--help'],
    });
    // Before --, -h is still clat's help; an unknown leading option is named as an option.
    const help = await sandbox.run(['mcp', 'add', '-h', '--', 'x']);
    expect(help.stdout).toContain('Usage: clat mcp');
    const bogus = await sandbox.run(['--bogus']);
    expect(bogus.stderr).toBe(
      'clat: unknown option "--bogus"; run "clat --help" for the list [CLI_USAGE]\n',
    );
    expect(bogus.code).toBe(2);
    // The command without --: its own option is taken for clat's, and the refusal shows where
    // the command goes, as a command that works.
    const noDash = await sandbox.run(['mcp', 'add', 'mem', 'npx', '-y', 'pkg with space']);
    expect(noDash.code).toBe(2);
    expect(noDash.stderr).toContain(
      "a server command goes after --: clat mcp add mem -- npx -y 'pkg with space'",
    );
    const fixed = await sandbox.run(['mcp', 'add', 'mem', '--', 'npx', '-y', 'pkg with space']);
    expect(fixed.code, fixed.stderr).toBe(0);
    // The same with clat's own options before the name (as Claude Code's README orders them):
    // they are kept where typed, and the line shown adds the server as it says.
    const typed = ['--transport', 'stdio', '-e', 'A=1', 'mem2', 'npx', '-y', 'pkg'];
    const optionsFirst = await sandbox.run(['mcp', 'add', ...typed]);
    expect(optionsFirst.code).toBe(2);
    const shown = 'clat mcp add --transport stdio -e A=1 mem2 -- npx -y pkg';
    expect(optionsFirst.stderr).toContain(`a server command goes after --: ${shown}`);
    const retyped = await sandbox.run(shownCommandArgs(shown));
    expect(retyped.code, retyped.stderr).toBe(0);
    const got2 = await sandbox.run(['mcp', 'get', 'mem2', '--json']);
    expect(JSON.parse(got2.stdout)).toMatchObject({ command: 'npx', args: ['-y', 'pkg'] });
    // An option clat does not know before the name stays the plain refusal: no line to retype.
    const unknownFirst = await sandbox.run(['mcp', 'add', '-x', 'mem3', 'npx', '-y', 'pkg']);
    expect(unknownFirst.code).toBe(2);
    expect(unknownFirst.stderr).not.toContain('goes after --');
  });

  it('refuses to rewrite a file that is not valid JSON', async () => {
    await writeFile(join(sandbox.home, 'mcp.json'), '{ // a comment\n "a": {"command": "x"} }\n');
    const result = await sandbox.run(['mcp', 'add', 'b', '--', 'node']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/mcp\.json: not valid JSON .*fix it by hand/);
    expect(await readFile(join(sandbox.home, 'mcp.json'), 'utf8')).toContain('// a comment');
  });
});

describe('clat processes editing one config file at once', () => {
  // Each edit reads the file, changes it and renames a new copy over it: without a lock, parallel
  // edits each wrote what they had read and the last rename dropped the others' entries, while
  // every command printed success.
  it('keeps every server of parallel `clat mcp add` and every project of parallel `clat trust`', async () => {
    await sandbox.writeMcp({ mcpServers: { keep: { command: 'keep-me' } } });
    const names = Array.from({ length: 8 }, (_, i) => `s${i}`);
    const added = await Promise.all(
      names.map((name) => sandbox.run(['mcp', 'add', name, '--', 'node', `${name}.mjs`])),
    );
    for (const result of added) expect(result.code, result.stderr).toBe(0);
    const servers = ((await sandbox.readMcp()) as { mcpServers: Record<string, unknown> })
      .mcpServers;
    expect(Object.keys(servers).sort()).toEqual(['keep', ...names]);
    expect(servers.s3).toEqual({ command: 'node', args: ['s3.mjs'] });

    const projects = names.map((name) => join(sandbox.root, `p-${name}`));
    await Promise.all(projects.map((dir) => mkdir(dir)));
    const trusted = await Promise.all(projects.map((dir) => sandbox.run(['trust', dir])));
    for (const result of trusted) expect(result.code, result.stderr).toBe(0);
    const listed = await sandbox.run(['trust', '--list']);
    for (const dir of projects) expect(listed.stdout).toContain(dir);

    const removed = await Promise.all(
      names.slice(0, 4).map((name) => sandbox.run(['mcp', 'remove', name])),
    );
    for (const result of removed) expect(result.code, result.stderr).toBe(0);
    expect(
      Object.keys(((await sandbox.readMcp()) as { mcpServers: object }).mcpServers).sort(),
    ).toEqual(['keep', ...names.slice(4)]);
    // No lock or temporary file is left behind.
    const left = (await readdir(sandbox.home)).filter((name) =>
      /\.(lock|tmp|stale|takeover)$/.test(name),
    );
    expect(left).toEqual([]);
  });

  // A `clat mcp add` stopped with Ctrl-Z in its edit: after 10 s another took its lock over, and
  // when the first went on (fg) its write dropped the other's entry, both saying "Added".
  it('never takes the lock of a live holder, however old: the other edit is refused, naming it', async () => {
    await sandbox.writeMcp({ mcpServers: { keep: { command: 'keep-me' } } });
    const lock = join(sandbox.home, 'mcp.json.lock');
    // pid 1 runs, and started before the lock's time (a minute ago), as a stopped holder's does.
    await writeFile(lock, `1:${'0'.repeat(36)}`);
    const old = new Date(Date.now() - 60_000);
    await utimes(lock, old, old);
    const refused = await sandbox.run(['mcp', 'add', 'late', '--', 'node', 'late.mjs']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      `mcp.json: process 1 kept it locked for 20 s (${lock}); retry once it has finished (a clat stopped with Ctrl-Z goes on with "fg")`,
    );
    expect(refused.stderr).toMatch(/\[CLI_CONFIG_BUSY\]\n$/);
    expect(Object.keys(((await sandbox.readMcp()) as { mcpServers: object }).mcpServers)).toEqual([
      'keep',
    ]);
    // A holder that is gone is taken over at once, and the retry the message names works.
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    await writeFile(lock, `${gone}:${'0'.repeat(36)}`);
    const retried = await sandbox.run(['mcp', 'add', 'late', '--', 'node', 'late.mjs']);
    expect(retried.code, retried.stderr).toBe(0);
    expect(await readdir(sandbox.home)).not.toContain('mcp.json.lock');
  }, 60_000);
});

describe("a project's own .clat/mcp.json in list, get, remove and disable", () => {
  // `clat mcp` and `login` read a trusted project's own file; list and get showed only the
  // user's, so a server `clat mcp` listed was "no server named" to `get`, and remove/disable did
  // not say where the entry is.
  it('lists and gets its entries once trusted, and says which file holds one the edits do not change', async () => {
    const userFile = join(sandbox.home, 'mcp.json');
    const projectFile = join(sandbox.project, '.clat', 'mcp.json');
    await sandbox.writeMcp({
      mcpServers: { notes: { command: 'notes-cmd' }, shared: { command: 'user-shared' } },
    });
    await mkdir(join(sandbox.project, '.clat'));
    const projectText = `${JSON.stringify({
      mcpServers: {
        docs: {
          url: 'https://docs.example/mcp',
          headers: { Authorization: 'Bearer sk-projsecret123456' },
        },
        shared: { command: 'project-shared' },
      },
    })}\n`;
    await writeFile(projectFile, projectText);
    const note = `${projectFile} is not read because the project is not trusted (run "clat trust ${sandbox.project}", or pass --trust)`;

    const untrusted = await sandbox.run(['mcp', 'list']);
    expect(untrusted.code).toBe(0);
    expect(untrusted.stdout).toBe(
      `${userFile}\n  notes  stdio  notes-cmd\n  shared  stdio  user-shared\n${note}\n`,
    );
    const hidden = await sandbox.run(['mcp', 'get', 'docs']);
    expect(hidden.code).toBe(1);
    expect(hidden.stderr).toContain(`${userFile}: no server named "docs"; ${note}`);

    const trusted = await sandbox.run(['mcp', 'list', '--trust']);
    expect(trusted.stdout).toBe(
      [
        userFile,
        '  notes  stdio  notes-cmd',
        '  shared  stdio  user-shared',
        `${projectFile} (the project's own)`,
        '  docs  http  https://docs.example/mcp headers: Authorization',
        `  shared  stdio  project-shared  (replaced by the same-named entry in ${userFile})`,
        '',
      ].join('\n'),
    );
    const json = parseJsonOutput<{ project: { trusted: boolean; servers: unknown[] } }>(
      await sandbox.run(['mcp', 'list', '--trust', '--json']),
    );
    expect(json.project).toEqual({
      file: projectFile,
      trusted: true,
      servers: [
        {
          name: 'docs',
          transport: 'http',
          url: 'https://docs.example/mcp',
          headers: ['Authorization'],
          origin: 'project',
        },
        {
          name: 'shared',
          transport: 'stdio',
          command: 'project-shared',
          args: [],
          env: [],
          origin: 'project',
          replaced: true,
        },
      ],
    });

    expect((await sandbox.run(['trust'])).code).toBe(0);
    const got = await sandbox.run(['mcp', 'get', 'docs', '--json']);
    expect(parseJsonOutput<{ origin: string }>(got).origin).toBe('project');
    // The user's entry is the one the mount uses.
    expect((await sandbox.run(['mcp', 'get', 'shared'])).stdout).toContain('user-shared');

    const userText = await readFile(userFile, 'utf8');
    for (const verb of ['disable', 'remove']) {
      const refused = await sandbox.run(['mcp', verb, 'docs']);
      expect(refused.code).toBe(1);
      const command = `clat mcp ${verb} --scope project docs`;
      expect(refused.stderr).toContain(
        `${userFile}: no server named "docs"; "docs" is in ${projectFile}, the project's own mcp.json: run "${command}"`,
      );
      if (verb === 'disable') expect(await readFile(projectFile, 'utf8')).toBe(projectText);
      // The command it names edits the project's file.
      const done = await sandbox.run(command.split(' ').slice(1));
      expect(done.code, done.stderr).toBe(0);
      const docs = (
        JSON.parse(await readFile(projectFile, 'utf8')) as {
          mcpServers: Record<string, { disabled?: boolean }>;
        }
      ).mcpServers.docs;
      expect(docs).toEqual(
        verb === 'disable' ? expect.objectContaining({ disabled: true }) : undefined,
      );
    }
    expect(await readFile(userFile, 'utf8')).toBe(userText);
    // From the project's side, a user entry is named with the command that edits it.
    const fromProject = await sandbox.run(['mcp', 'remove', '--scope', 'project', 'notes']);
    expect(fromProject.code).toBe(1);
    expect(fromProject.stderr).toContain(
      `${projectFile}: no server named "notes"; "notes" is in ${userFile}: run "clat mcp remove notes"`,
    );
    for (const result of [untrusted, trusted, got]) {
      expect(result.stdout + result.stderr).not.toContain('sk-projsecret123456');
    }
  });

  it('adds a project server with --scope project: paths from ${projectRoot}, keys and trust noted', async () => {
    // In a subdirectory of the project, which already has its .clat/mcp.json.
    const projectFile = join(sandbox.project, '.clat', 'mcp.json');
    await mkdir(join(sandbox.project, '.clat'));
    await writeFile(projectFile, '{"mcpServers":{}}\n');
    await cp(join(NOTES_SERVER, '..'), join(sandbox.project, 'tools', 'notes'), {
      recursive: true,
    });
    const sub = join(sandbox.project, 'src');
    await mkdir(sub);
    const key = 'sk-proj-ScopeValue0123456789';
    const added = await sandbox.run(
      [
        'mcp',
        'add',
        'team-notes',
        '--scope',
        'project',
        '--env',
        'MCP_NOTES_DIR=${projectRoot}/notes',
        '--env',
        `NOTES_API_KEY=${key}`,
        '--',
        process.execPath,
        '../tools/notes/server.mjs',
        '--log=../../outside.log',
      ],
      { cwd: sub },
    );
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toBe(
      [
        `Added stdio server "team-notes" to ${projectFile}; restart CLAT to mount it`,
        `Relative paths were made absolute, inside the project from \${projectRoot} (${sandbox.project} here, wherever the project is checked out), since servers run in ${sandbox.home}: ../tools/notes/server.mjs → \${projectRoot}/tools/notes/server.mjs, --log=../../outside.log → --log=${join(sandbox.project, '..', 'outside.log')}`,
        `Note: ${projectFile} is the project's own file, often committed: the value of --env NOTES_API_KEY is written as typed; write '\${NAME}' (in single quotes, so the shell leaves it) to take a value from the environment CLAT runs in`,
        `CLAT starts the project's servers once the project is trusted: clat trust ${sandbox.project}`,
        '',
      ].join('\n'),
    );
    const written = JSON.parse(await readFile(projectFile, 'utf8')) as {
      mcpServers: Record<string, { args: string[] }>;
    };
    expect(written.mcpServers['team-notes']?.args).toEqual([
      '${projectRoot}/tools/notes/server.mjs',
      `--log=${join(sandbox.project, '..', 'outside.log')}`,
    ]);
    // The command the note names works, and the server starts from the project's root.
    expect((await sandbox.run(['trust', sandbox.project])).code).toBe(0);
    const tools = await sandbox.run(['tools', 'team-notes'], { cwd: sub });
    expect(tools.code, tools.stderr).toBe(0);
    expect(tools.stdout).toContain('mcp_team_notes_add_note(');
    // The user's file was not touched; -C names the project from anywhere.
    await expect(readFile(join(sandbox.home, 'mcp.json'), 'utf8')).rejects.toThrow();
    const removed = await sandbox.run([
      'mcp',
      'remove',
      'team-notes',
      '--scope',
      'project',
      '-C',
      sandbox.project,
    ]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toBe(`Removed server "team-notes" from ${projectFile}\n`);
    const misused = await sandbox.run(['mcp', 'remove', 'x', '-C', sandbox.project]);
    expect(misused.code).toBe(2);
    expect(misused.stderr).toContain('-C names a project, and applies only with --scope project');
    // In the home directory, .clat/mcp.json is the user's file: project scope refuses it.
    const homeDir = join(sandbox.root, 'me');
    await mkdir(join(homeDir, '.clat'), { recursive: true });
    const inHome = await sandbox.run(['mcp', 'add', 'x', '--scope', 'project', '--', 'x-cmd'], {
      cwd: homeDir,
      env: { HOME: homeDir, CLAT_HOME: join(homeDir, '.clat') },
    });
    expect(inHome.code).toBe(2);
    expect(inHome.stderr).toContain(
      `${join(homeDir, '.clat', 'mcp.json')} is the user's mcp.json (the CLAT home), not a project's: drop --scope project`,
    );
    await expect(readFile(join(homeDir, '.clat', 'mcp.json'), 'utf8')).rejects.toThrow();
  });
});

describe('clat mcp add-json', () => {
  it('adds an entry pasted from a README or another client, and says what did not map', async () => {
    const userFile = join(sandbox.home, 'mcp.json');
    // Claude Desktop's shape, the one most READMEs show: the only server is taken, with its name.
    const desktop = JSON.stringify({ mcpServers: { notes: sandbox.notesServer() } });
    const added = await sandbox.run(['mcp', 'add-json', desktop]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toBe(
      `Added stdio server "notes" to ${userFile}; restart CLAT to mount it\n`,
    );
    const tools = await sandbox.run(['tools', 'notes', '--trust']);
    expect(tools.code, tools.stderr).toBe(0);
    expect(tools.stdout).toContain('mcp_notes_add_note(');

    // VS Code's shape, an HTTP entry with a field CLAT has no use for: said, not dropped silently.
    const vscode = JSON.stringify({
      servers: {
        docs: {
          type: 'http',
          url: 'https://docs.example/mcp',
          headers: { Authorization: 'Bearer ${env:DOCS_TOKEN}' },
          timeout: 5000,
        },
        other: { command: 'other-cmd' },
      },
    });
    const many = await sandbox.run(['mcp', 'add-json', vscode]);
    expect(many.code).toBe(2);
    expect(many.stderr).toContain(
      'the JSON holds 2 servers ("docs", "other"); name the one to add before the JSON',
    );
    const docs = await sandbox.run(['mcp', 'add-json', 'docs', vscode]);
    expect(docs.code, docs.stderr).toBe(0);
    expect(docs.stdout).toBe(
      [
        `Added http server "docs" to ${userFile}; restart CLAT to mount it`,
        'Note: "timeout" was not imported: CLAT applies its own limits (10 s handshake, 120 s per call)',
        '',
      ].join('\n'),
    );
    const written = JSON.parse(await readFile(userFile, 'utf8')) as {
      mcpServers: Record<string, unknown>;
    };
    expect(written.mcpServers.docs).toEqual({
      url: 'https://docs.example/mcp',
      headers: { Authorization: 'Bearer ${DOCS_TOKEN}' },
    });
    expect(written.mcpServers.other).toBeUndefined();

    // A bare entry needs its name; bad JSON is refused without its text (it may hold a key).
    const bare = await sandbox.run(['mcp', 'add-json', '{"command":"x"}']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain(
      "the JSON is one server entry without its name; give the name first: clat mcp add-json <name> '<json>'",
    );
    const broken = await sandbox.run([
      'mcp',
      'add-json',
      'k',
      '{"env":{"K":"sk-proj-Broken0123456789"},}',
    ]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain(
      'the JSON is not valid (at character 41); its text is not shown',
    );
    expect(broken.stderr).not.toContain('sk-proj-Broken');
    const invalid = await sandbox.run(['mcp', 'add-json', 'bad', '{"url":"ftp://docs.example/"}']);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/^clat: clat mcp add-json: url: .*; nothing was written to /);

    // Into the project's file, a literal key is noted.
    const project = await sandbox.run([
      'mcp',
      'add-json',
      '--scope',
      'project',
      'team-docs',
      '{"url":"https://docs.example/mcp","headers":{"Authorization":"Bearer sk-proj-Team0123456789"}}',
    ]);
    expect(project.code, project.stderr).toBe(0);
    const projectFile = join(sandbox.project, '.clat', 'mcp.json');
    expect(project.stdout).toContain(`Added http server "team-docs" to ${projectFile}`);
    expect(project.stdout).toContain(
      `Note: ${projectFile} is the project's own file, often committed: the value of header "Authorization" is written as typed`,
    );
    expect(project.stdout).not.toContain('sk-proj-Team');
  });
});

describe('mounting with bad entries', () => {
  it('reports each bad entry by file and field, with the field a typo meant, and still mounts the good one', async () => {
    await sandbox.writeMcp({
      mcpServers: {
        both: { command: 'node', url: 'https://example.com/mcp' },
        neither: { args: ['x'] },
        typo: { command: 'node', argz: ['x'] },
        misspelt: { comand: 'node' },
        gemini: { httpUrl: 'https://example.com/mcp' },
        notes: sandbox.notesServer(),
      },
    });
    const result = await sandbox.run(['mcp', '--json', '--trust']);
    // Skipped entries make the configuration unhealthy, though the good entry mounted.
    expect(result.code).toBe(1);
    const status = parseJsonOutput<{
      configured: number;
      connected: number;
      configIssues: string[];
      servers: { name: string; state: string; tools: number }[];
    }>(result);
    const file = join(sandbox.home, 'mcp.json');
    expect(status.configIssues).toEqual([
      `${file}: both: entry has both "command" and "url"; choose exactly one transport`,
      `${file}: neither: entry needs either "command" (stdio) or "url" (Streamable HTTP)`,
      `${file}: typo: unknown field(s) "argz" (did you mean "args"?)`,
      `${file}: misspelt: entry needs either "command" (stdio) or "url" (Streamable HTTP) ("comand": did you mean "command"?)`,
      `${file}: gemini: entry needs either "command" (stdio) or "url" (Streamable HTTP) ("httpUrl" is Gemini CLI's name for "url" in CLAT)`,
    ]);
    expect(status.configured).toBe(1);
    expect(status.connected).toBe(1);
    expect(status.servers[0]).toMatchObject({ name: 'notes', state: 'connected', tools: 5 });
  });

  it("notes a project entry's relative path, which names nothing where its server runs", async () => {
    // A Claude Code project .mcp.json copied as it is: "./server.mjs" relative to the project.
    await writeFile(join(sandbox.project, 'server.mjs'), 'process.exit(1);\n');
    await mkdir(join(sandbox.project, '.clat'), { recursive: true });
    await writeFile(
      join(sandbox.project, '.clat', 'mcp.json'),
      JSON.stringify({ mcpServers: { local: { command: 'node', args: ['./server.mjs'] } } }),
    );
    const note = `${join(sandbox.project, '.clat', 'mcp.json')} entry "local" names "./server.mjs" relative to where its server runs (${sandbox.home}), not to the project: write "\${projectRoot}/server.mjs", or set "cwd"`;
    const text = await sandbox.run(['mcp', '--trust']);
    expect(text.stdout).toContain(note);
    const status = parseJsonOutput<Record<string, unknown>>(
      await sandbox.run(['mcp', '--json', '--trust']),
    );
    expect(JSON.stringify(status)).toContain(JSON.stringify(note).slice(1, -1));

    // A bare "." (server-filesystem's "the project") is rooted as the project itself, and the
    // entry written as advised has no note.
    const file = join(sandbox.project, '.clat', 'mcp.json');
    await writeFile(
      file,
      JSON.stringify({ mcpServers: { fs: { command: 'node', args: ['fs.mjs', '.'] } } }),
    );
    const bare = await sandbox.run(['mcp', '--trust']);
    expect(bare.stdout).toContain(
      `${file} entry "fs" names "." relative to where its server runs (${sandbox.home}), not to the project: write "\${projectRoot}", or set "cwd"`,
    );
    await writeFile(
      file,
      JSON.stringify({
        mcpServers: { fs: { command: 'node', args: ['fs.mjs', '${projectRoot}'] } },
      }),
    );
    expect((await sandbox.run(['mcp', '--trust'])).stdout).not.toContain(
      'relative to where its server runs',
    );
  });

  it('never suggests `clat mcp add` when entries were skipped or mcp.json is unreadable', async () => {
    const file = join(sandbox.home, 'mcp.json');
    await writeFile(file, '{ "docs": { "url": "https://example.com/mcp" }, }\n');
    const unreadable = await sandbox.run(['mcp', '--trust']);
    expect(unreadable.code).toBe(1);
    expect(unreadable.stdout).not.toContain('clat mcp add');
    expect(unreadable.stdout).toContain(`Config issues (${file} could not be read; fix ${file}):`);
    expect(unreadable.stdout).toContain(
      `  (no MCP server mounted: ${file} could not be read; fix ${file})`,
    );

    await sandbox.writeMcp({ mcpServers: { a: { command: '' }, b: { url: 'ftp://x/' } } });
    const skipped = await sandbox.run(['mcp', '--trust']);
    expect(skipped.code).toBe(1);
    expect(skipped.stdout).not.toContain('clat mcp add');
    expect(skipped.stdout).toContain(`  (no MCP server mounted: 2 entries skipped; fix ${file})`);

    await sandbox.writeMcp({ mcpServers: {} });
    const empty = await sandbox.run(['mcp', '--trust']);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toContain('  (no MCP servers configured; add one with `clat mcp add`)');
  });
});
