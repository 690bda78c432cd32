/**
 * `clat mcp add` as people type it from other clients' READMEs: Claude Code's and Gemini CLI's
 * `mcp add --transport http <name> <url>` (the URL after the name, no `--url`), their short flags
 * (`-t`, `-e`, `-H`, `-s`), Claude Code's `--transport stdio`, and Codex's
 * `--bearer-token-env-var`. The binary before this change refused every one of these forms
 * ("--transport applies only to --url servers", unknown option "-s"), and for `-t http -H …` it
 * suggested a command that it then refused too.
 */
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startDualEraServer, stopAllHttpFixtures } from '../fixtures/http-servers/spawn.js';
import { NOTES_SERVER, parseJsonOutput, useCliSandbox } from './support.js';

const TOKEN = 'sk-forms-bearer-0123456789abcdef';

const sandbox = useCliSandbox(undefined, { teardown: stopAllHttpFixtures });

interface Status {
  servers: { name: string; state: string; transport: string; failure?: string }[];
}

describe('clat mcp add in the forms of other clients', () => {
  it("takes Claude Code's --transport http <name> <url> and Codex's --bearer-token-env-var", async () => {
    const fixture = await startDualEraServer(TOKEN);
    const url = `${fixture.origin}/mcp`;
    const added = await sandbox.run([
      'mcp',
      'add',
      '--transport',
      'http',
      'web',
      url,
      '--bearer-token-env-var',
      'WEB_TOKEN',
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toBe(
      [
        `Added http server "web" to ${join(sandbox.home, 'mcp.json')}; restart CLAT to mount it`,
        'WEB_TOKEN is not set here: CLAT reads the token from it in the environment it starts in, and skips the server while it is unset',
        '',
      ].join('\n'),
    );
    // The file holds the reference, never a token.
    expect(await sandbox.readMcp()).toEqual({
      mcpServers: { web: { url, headers: { Authorization: 'Bearer ${WEB_TOKEN}' } } },
    });

    // Unset, the entry is skipped and the status names the variable.
    const unset = parseJsonOutput<Status & { configIssues: string[] }>(
      await sandbox.run(['mcp', '--json', '--trust']),
    );
    expect(unset.servers).toEqual([]);
    expect(unset.configIssues).toEqual([
      `${join(sandbox.home, 'mcp.json')}: web.headers.Authorization: the environment variable WEB_TOKEN is not set and has no default (write \${WEB_TOKEN:-value} for one)`,
    ]);

    // A wrong token is refused by the server; the right one connects and the tool answers.
    const wrong = parseJsonOutput<Status>(
      await sandbox.run(['mcp', '--json', '--trust'], { env: { WEB_TOKEN: 'sk-wrong-000000' } }),
    );
    expect(wrong.servers[0]?.state).toBe('failed');
    const called = await sandbox.run(['call', '--trust', 'mcp_web_echo', '{"text":"by url"}'], {
      env: { WEB_TOKEN: TOKEN },
    });
    expect(called.code, called.stderr).toBe(0);
    expect(called.stdout).toBe('echo: by url\n');
    const status = await sandbox.run(['mcp', '--trust'], { env: { WEB_TOKEN: TOKEN } });
    expect(status.stdout).toMatch(/web\s+http\s+connected/);
    for (const output of [added, status, called]) {
      expect(`${output.stdout}${output.stderr}`).not.toContain(TOKEN);
    }

    // A URL after the name needs no --transport; -t sse and -H as Gemini CLI takes them.
    const bare = await sandbox.run([
      'mcp',
      'add',
      'web2',
      url,
      '-H',
      `Authorization: Bearer ${TOKEN}`,
    ]);
    expect(bare.code, bare.stderr).toBe(0);
    const sse = await sandbox.run(['mcp', 'add', '-t', 'sse', 'legacy', `${fixture.origin}/sse`]);
    expect(sse.stdout).toContain('Added HTTP+SSE server "legacy"');
    const file = (await sandbox.readMcp()) as { mcpServers: Record<string, unknown> };
    expect(file.mcpServers.web2).toEqual({
      url,
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(file.mcpServers.legacy).toEqual({ type: 'sse', url: `${fixture.origin}/sse` });
    const listed = await sandbox.run(['call', '--trust', 'mcp_web2_echo', '{"text":"header"}']);
    expect(listed.stdout).toBe('echo: header\n');
  });

  it('takes -s, -e and --transport stdio for a command server', async () => {
    const added = await sandbox.run([
      'mcp',
      'add',
      '-s',
      'project',
      '-t',
      'stdio',
      '-e',
      `MCP_NOTES_DIR=${join(sandbox.root, 'notes')}`,
      'notes',
      '--',
      process.execPath,
      NOTES_SERVER,
    ]);
    expect(added.code, added.stderr).toBe(0);
    const projectFile = join(sandbox.project, '.clat', 'mcp.json');
    expect(added.stdout).toContain(`Added stdio server "notes" to ${projectFile}`);
    expect(JSON.parse(await readFile(projectFile, 'utf8'))).toEqual({
      mcpServers: {
        notes: {
          command: process.execPath,
          args: [NOTES_SERVER],
          env: { MCP_NOTES_DIR: join(sandbox.root, 'notes') },
        },
      },
    });
    const tools = await sandbox.run(['tools', 'notes', '--trust']);
    expect(tools.code, tools.stderr).toBe(0);
    expect(tools.stdout).toContain('mcp_notes_add_note(');
    // -s for remove too.
    const removed = await sandbox.run(['mcp', 'remove', '-s', 'project', 'notes']);
    expect(removed.stdout).toBe(`Removed server "notes" from ${projectFile}\n`);
  });

  it("says when a server's arguments put a key on its command line, and the --env it suggests adds none", async () => {
    const key = 'ghp_0123456789abcdefghijklmnopqrstuvwx';
    const env = { NOTES_GH_TOKEN: key, MCP_NOTES_DIR: join(sandbox.root, 'notes') };
    // As READMEs write it for mcp.json's ${NAME}: the value is read at each start and put in argv.
    const added = await sandbox.run(
      ['mcp', 'add', 'gh', '--', process.execPath, NOTES_SERVER, '--token', '${NOTES_GH_TOKEN}'],
      { env },
    );
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain(
      "Note: the server's arguments read NOTES_GH_TOKEN from the environment CLAT starts in, so each start puts its value on the server's command line, where other users of this machine can read it (ps); if the server reads it from its environment, pass it with --env 'NOTES_GH_TOKEN=${NOTES_GH_TOKEN}' instead\n",
    );
    expect(added.stdout).not.toContain('looks like a key');
    // It is a note: the entry is written, and its server starts with the variable set.
    const tools = await sandbox.run(['tools', 'gh', '--trust'], { env });
    expect(tools.code, tools.stderr).toBe(0);
    expect(tools.stdout).toContain('mcp_gh_add_note(');

    // The suggested form: nothing on the command line, so nothing to say.
    const advised = await sandbox.run(
      [
        'mcp',
        'add',
        'gh2',
        '--env',
        'NOTES_GH_TOKEN=${NOTES_GH_TOKEN}',
        '--',
        process.execPath,
        NOTES_SERVER,
      ],
      { env },
    );
    expect(advised.code, advised.stderr).toBe(0);
    expect(advised.stdout).not.toContain('Note:');
    // A key typed as an argument: said, never shown; a variable not named like a secret is quiet.
    const typed = await sandbox.run(
      [
        'mcp',
        'add',
        'gh3',
        '--',
        process.execPath,
        NOTES_SERVER,
        `--api-key=${key}`,
        '--dir',
        '${HOME}',
      ],
      { env },
    );
    expect(typed.code, typed.stderr).toBe(0);
    expect(typed.stdout).toContain(
      "Note: a server argument looks like a key; other users of this machine can read server arguments (ps): if the server reads it from its environment, pass it with --env 'NAME=${NAME}' instead (read from the environment CLAT starts in)\n",
    );
    expect(typed.stdout).not.toContain("the server's arguments read");
    for (const output of [added, tools, advised, typed]) {
      expect(`${output.stdout}${output.stderr}`).not.toContain(key);
    }
  });

  it('makes a bare script name that exists here absolute, as READMEs write node server.js', async () => {
    await copyFile(NOTES_SERVER, join(sandbox.project, 'server.mjs'));
    const added = await sandbox.run(['mcp', 'add', 'bare', '--', 'node', 'server.mjs'], {
      env: { MCP_NOTES_DIR: join(sandbox.root, 'notes') },
    });
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain(
      `Relative paths were made absolute, since servers run in ${sandbox.home}: server.mjs → ${join(sandbox.project, 'server.mjs')}`,
    );
    expect(await sandbox.readMcp()).toMatchObject({
      mcpServers: { bare: { command: 'node', args: [join(sandbox.project, 'server.mjs')] } },
    });
    const tools = await sandbox.run(['tools', 'bare', '--trust'], {
      env: { MCP_NOTES_DIR: join(sandbox.root, 'notes') },
    });
    expect(tools.code, tools.stderr).toBe(0);
    expect(tools.stdout).toContain('mcp_bare_add_note(');
  });

  it('says that a server given a directory may use the project root instead, and --no-roots keeps it', async () => {
    const dir = join(sandbox.project, 'data');
    await mkdir(dir, { recursive: true });
    const added = await sandbox.run([
      'mcp',
      'add',
      'fs',
      '--',
      process.execPath,
      NOTES_SERVER,
      './data',
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain(
      `Note: CLAT offers the server the project root as an MCP root; a server that narrows itself to its roots (server-filesystem does) then uses it instead of ${dir}; --no-roots on the add keeps that directory\n`,
    );
    const kept = await sandbox.run([
      'mcp',
      'add',
      'fs2',
      '--no-roots',
      '--',
      process.execPath,
      NOTES_SERVER,
      './data',
    ]);
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stdout).not.toContain('MCP root');
    expect(await sandbox.readMcp()).toMatchObject({ mcpServers: { fs2: { roots: false } } });
  });

  it('refuses what cannot be meant, naming the flag, and writes nothing', async () => {
    await writeFile(join(sandbox.home, 'mcp.json'), '{"mcpServers":{}}\n');
    const cases: [string[], string][] = [
      [
        ['-s', 'local', 'docs', 'https://docs.example/mcp'],
        "CLAT has no local scope (Claude Code's: one project, only you); --scope user (the default) edits ~/.clat/mcp.json, whose servers start in every trusted project, and --scope project the project's own .clat/mcp.json",
      ],
      [
        ['--transport', 'http', 'docs'],
        "--transport http takes the server's URL, one word after the name (clat mcp add <name> <url> --transport http), or --url <url>; a command is a stdio server",
      ],
      [
        ['--transport', 'stdio', 'docs', 'https://docs.example/mcp'],
        '--transport stdio runs a command (after --), and a URL is an http server: drop --transport or give --transport http',
      ],
      [
        ['-t', 'websocket', 'docs', 'https://docs.example/mcp'],
        '--transport must be stdio, http or sse, not "websocket"',
      ],
      [['-t', 'http', 'docs', 'docs.example/mcp'], 'the URL: must be an absolute URL'],
      [
        [
          'docs',
          'https://docs.example/mcp',
          '-H',
          'Authorization: x',
          '--bearer-token-env-var',
          'T',
        ],
        '--bearer-token-env-var and --header "Authorization" both set the Authorization header; give one',
      ],
      [
        ['docs', '--bearer-token-env-var', 'T', '--', 'docs-cmd'],
        'only servers with a URL take --bearer-token-env-var',
      ],
      // The token itself, typed where its variable's name goes: refused, never shown.
      [
        [
          'docs',
          'https://docs.example/mcp',
          '--bearer-token-env-var',
          'ghp_0123456789abcdefghijklmnopqrstuvwxyz',
        ],
        '--bearer-token-env-var takes the name of an environment variable (letters, digits and _, not starting with a digit) that holds the token; its text is not shown, since it may be the token itself',
      ],
    ];
    for (const [args, message] of cases) {
      const refused = await sandbox.run(['mcp', 'add', ...args]);
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.stderr).toContain(message);
      expect(refused.stderr).not.toContain('ghp_0123456789');
    }
    // A URL is no command: an unknown option after it gets no "goes after --" hint.
    const unknown = await sandbox.run([
      'mcp',
      'add',
      'docs',
      'https://docs.example/mcp',
      '--bogus',
      '5',
    ]);
    expect(unknown.stderr).toContain('unknown option "--bogus" for clat mcp add');
    expect(unknown.stderr).not.toContain('goes after --');
    expect(await sandbox.readMcp()).toEqual({ mcpServers: {} });
  });

  it("answers Gemini CLI's own options with what CLAT does instead, and the line without them adds", async () => {
    // As Gemini CLI's README writes them: `gemini mcp add --transport http --timeout 30000 …`.
    const geminiLines: [string[], string][] = [
      [
        ['--transport', 'http', '--timeout', '30000', 'docs', 'https://docs.example/mcp'],
        "--timeout is Gemini CLI's option; CLAT has no per-server timeout (it applies its own limits: 10 s for the handshake, 120 s per tool call); leave out --timeout and its value",
      ],
      [
        ['-t', 'http', 'docs', 'https://docs.example/mcp', '--timeout=30000'],
        'leave out --timeout and its value',
      ],
      [
        ['--trust', '-t', 'http', 'docs', 'https://docs.example/mcp'],
        "--trust is Gemini CLI's option to run a server's tools without asking; CLAT asks per its permission mode (--mode) and keeps the tools you allow for a project (clat approvals), and a project is trusted with clat trust; leave out --trust",
      ],
      [
        ['docs', 'https://docs.example/mcp', '--description', 'Docs search'],
        "--description is Gemini CLI's option; mcp.json entries carry no description",
      ],
    ];
    for (const [args, message] of geminiLines) {
      const refused = await sandbox.run(['mcp', 'add', ...args]);
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.stderr).toContain(message);
      expect(refused.stderr).not.toContain('see "clat mcp add --help"');
    }
    await expect(readFile(join(sandbox.home, 'mcp.json'))).rejects.toThrow(/ENOENT/);
    // Left out as said, the first line adds the server.
    const added = await sandbox.run([
      'mcp',
      'add',
      '--transport',
      'http',
      'docs',
      'https://docs.example/mcp',
    ]);
    expect(added.code).toBe(0);
    expect(await sandbox.readMcp()).toEqual({
      mcpServers: { docs: { url: 'https://docs.example/mcp' } },
    });
    // A name with a space, unquoted: refused, not a command that starts with its second word.
    const spaced = await sandbox.run(['mcp', 'add', 'my', 'server', '--', 'npx', '-y', 'pkg']);
    expect(spaced.code).toBe(2);
    expect(spaced.stderr).toContain(
      `clat mcp add: "server" comes between the name and --; a name with a space goes in quotes (clat mcp add 'my server' -- …), and the whole command after --`,
    );
    expect((await sandbox.readMcp()) as object).not.toHaveProperty('mcpServers.my');
    // After a command, an unknown option is the server's own: it goes after --, as before.
    const stdio = await sandbox.run(['mcp', 'add', 'mem', 'npx', '--timeout', '3', 'pkg']);
    expect(stdio.stderr).toContain(
      'a server command goes after --: clat mcp add mem -- npx --timeout 3 pkg',
    );
  });
});
