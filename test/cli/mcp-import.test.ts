/**
 * `clat mcp import --from <client>` through the real binary: each client's documented file under
 * a temporary HOME, field mapping and notes, dry run, name conflicts, and that an imported entry
 * with `${VAR}` references really mounts (mcp.json variables, day-one issue items 3 and 5).
 */
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NOTES_SERVER, parseJsonOutput, useCliSandbox } from './support.js';

let userHome: string;

const sandbox = useCliSandbox(async () => {
  userHome = join(sandbox.root, 'user');
  await mkdir(userHome, { recursive: true });
});

async function put(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
}

/** Runs clat with HOME pointing at the fake user home (where other clients keep their files). */
function run(args: string[], env: Record<string, string> = {}) {
  return sandbox.run(args, { env: { HOME: userHome, XDG_CONFIG_HOME: '', ...env } });
}

interface ImportReport {
  read: string[];
  servers: { name: string; action: string; reason?: string; notes: string[] }[];
}

describe('clat mcp import', () => {
  it('imports Codex TOML servers, maps bearer env vars to headers, and the result mounts', async () => {
    const [command, ...args] = [process.execPath, NOTES_SERVER, `--${sandbox.marker}`];
    await put(
      join(userHome, '.codex', 'config.toml'),
      `# Codex configuration
model = "o3"

[mcp_servers.notes]
command = ${JSON.stringify(command)}
args = ${JSON.stringify(args)}
env = { MCP_NOTES_DIR = "\${NOTES_DIR}" }
tool_timeout_sec = 30

[mcp_servers.tracker]
url = "https://tracker.example.com/mcp"
bearer_token_env_var = "TRACKER_TOKEN"
enabled_tools = ["search"]

[mcp_servers.old]
command = "old-server"
enabled = false
`,
    );
    const dry = await run(['mcp', 'import', '--from', 'codex', '--dry-run', '--json']);
    expect(dry.code).toBe(0);
    const report = parseJsonOutput<ImportReport>(dry);
    expect(report.read).toEqual([join(userHome, '.codex', 'config.toml')]);
    const byName = Object.fromEntries(report.servers.map((server) => [server.name, server]));
    expect(byName.notes?.action).toBe('add');
    expect(byName.notes?.notes.join('\n')).toContain('"tool_timeout_sec" was not imported');
    expect(byName.tracker?.action).toBe('add');
    expect(byName.old?.action).toBe('add');
    expect(byName.old?.notes.join('\n')).toContain('imported disabled');
    await expect(stat(join(sandbox.home, 'mcp.json'))).rejects.toThrow(/ENOENT/);

    const real = await run(['mcp', 'import', '--from', 'codex']);
    expect(real.code).toBe(0);
    expect(real.stdout).toContain('+ notes  stdio');
    expect(real.stdout).toContain('(env: MCP_NOTES_DIR)');
    expect(real.stdout).toContain('Wrote 3 servers');
    const written = (await sandbox.readMcp()) as { mcpServers: Record<string, unknown> };
    expect(written.mcpServers.tracker).toEqual({
      url: 'https://tracker.example.com/mcp',
      headers: { Authorization: 'Bearer ${TRACKER_TOKEN}' },
      includeTools: ['search'],
    });
    expect(written.mcpServers.old).toEqual({ command: 'old-server', disabled: true });
    expect(written.mcpServers.notes).toMatchObject({ env: { MCP_NOTES_DIR: '${NOTES_DIR}' } });

    // The notes entry mounts with NOTES_DIR from the environment; the tracker entry's unset
    // variable is one config issue naming entry and field, and does not stop the other server.
    const notesDir = join(sandbox.root, 'notes-from-env');
    const tools = await sandbox.run(['tools', '--json', '--trust'], {
      env: { NOTES_DIR: notesDir },
    });
    expect(tools.stderr).toContain(
      'tracker.headers.Authorization: the environment variable TRACKER_TOKEN is not set and has no default',
    );
    const listed = parseJsonOutput<{ tools: { name: string }[] }>(tools);
    expect(listed.tools.map((tool) => tool.name)).toContain('mcp_notes_add_note');
    const added = await sandbox.run(
      [
        'call',
        'mcp_notes_add_note',
        '{"title":"t","body":"from import"}',
        '--trust',
        '--mode',
        'full-access',
      ],
      { env: { NOTES_DIR: notesDir, TRACKER_TOKEN: 'tok-123' } },
    );
    expect(added.code).toBe(0);
    const files = await readFile(join(notesDir, 'notes.json'), 'utf8').catch(() => '');
    expect(files).toContain('from import');
    // `list` shows the entry as written: the variable, not its value.
    const listedEntry = await sandbox.run(['mcp', 'get', 'notes', '--json'], {
      env: { NOTES_DIR: notesDir },
    });
    expect(listedEntry.stdout).not.toContain(notesDir);
  });

  it('reads VS Code mcp.json with comments and inputs, rewrites variables and keeps SSE as HTTP+SSE', async () => {
    await put(
      join(sandbox.project, '.vscode', 'mcp.json'),
      `{
  // project servers
  "inputs": [{ "type": "promptString", "id": "api-key", "description": "Key", "password": true }],
  "servers": {
    "fs": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "\${workspaceFolder}"],
      "env": { "API_KEY": "\${input:api-key}", "HOME_DIR": "\${userHome}/x", "P": "\${env:PATH}" },
      "envFile": "\${workspaceFolder}/.env",
    },
    "legacy": { "type": "sse", "url": "http://localhost:9/sse" },
  },
}
`,
    );
    // A project's .vscode/mcp.json is the project's own: it goes to its .clat/mcp.json.
    const result = await run(['mcp', 'import', '--from', 'vscode', '--scope', 'project']);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('skipped');
    expect(result.stdout).toContain('  + legacy  sse  http://localhost:9/sse\n');
    expect(result.stdout).toContain('asks for a secret "api-key" in vscode: export API_KEY');
    expect(result.stdout).toContain('"envFile" is not read by CLAT');
    const written = JSON.parse(
      await readFile(join(sandbox.project, '.clat', 'mcp.json'), 'utf8'),
    ) as { mcpServers: Record<string, unknown> };
    expect(written.mcpServers.fs).toEqual({
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '${projectRoot}'],
      env: { API_KEY: '${API_KEY}', HOME_DIR: `${userHome}/x`, P: '${PATH}' },
    });
    expect(written.mcpServers.legacy).toEqual({ type: 'sse', url: 'http://localhost:9/sse' });
  });

  it("imports Gemini's bare $VAR references as ${VAR}, so the server gets the value, not the text", async () => {
    const [command, ...args] = [process.execPath, NOTES_SERVER, `--${sandbox.marker}`];
    await put(
      join(userHome, '.gemini', 'settings.json'),
      JSON.stringify({
        theme: 'Default',
        mcpServers: { notes: { command, args, env: { MCP_NOTES_DIR: '$NOTES_DIR' } } },
      }),
    );
    const result = await run(['mcp', 'import', '--from', 'gemini']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      '$NOTES_DIR is written ${NOTES_DIR} in CLAT (it is expanded when the project mounts)',
    );
    const written = (await sandbox.readMcp()) as { mcpServers: Record<string, unknown> };
    expect(written.mcpServers.notes).toMatchObject({ env: { MCP_NOTES_DIR: '${NOTES_DIR}' } });

    const notesDir = join(sandbox.root, 'gemini-notes');
    const added = await sandbox.run(
      [
        'call',
        'mcp_notes_add_note',
        '{"title":"t","body":"from gemini"}',
        '--trust',
        '--mode',
        'full-access',
      ],
      { env: { NOTES_DIR: notesDir } },
    );
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(await readFile(join(notesDir, 'notes.json'), 'utf8')).toContain('from gemini');
  });

  it('never replaces an existing name without --force, and keeps other entries', async () => {
    await sandbox.writeMcp({
      mcpServers: { memory: { command: 'mine' }, other: { command: 'o' } },
    });
    await put(
      join(userHome, '.config', 'Claude', 'claude_desktop_config.json'),
      JSON.stringify({
        mcpServers: {
          memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
          'bad/name': { command: 'x' },
        },
      }),
    );
    const kept = await run(['mcp', 'import', '--from', 'claude-desktop']);
    expect(kept.code).toBe(0);
    expect(kept.stdout).toContain('already in');
    expect(kept.stdout).toContain('pass --force to replace it');
    expect(kept.stdout).toContain('- bad/name  skipped: its name is not usable');
    expect(kept.stdout).toContain('Nothing to write');
    expect(
      ((await sandbox.readMcp()) as { mcpServers: { memory: unknown } }).mcpServers.memory,
    ).toEqual({
      command: 'mine',
    });
    const forced = await run(['mcp', 'import', '--from', 'claude-desktop', '--force']);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('~ memory  stdio  npx -y @modelcontextprotocol/server-memory');
    // As `clat mcp add`: without a terminal nothing is fetched, the npm command is named.
    expect(forced.stdout).toContain(
      `Note: npx downloads @modelcontextprotocol/server-memory at the server's first start, which often takes longer than the handshake allows (10 s); install it once now with "npm exec --yes --package=@modelcontextprotocol/server-memory -- node -e 0"`,
    );
    const after = (await sandbox.readMcp()) as { mcpServers: Record<string, unknown> };
    expect(after.mcpServers.memory).toEqual({
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-memory'],
    });
    expect(after.mcpServers.other).toEqual({ command: 'o' });
  });

  it('reads Claude Code user, local and project scopes; names the files when none exist', async () => {
    const missing = await run(['mcp', 'import', '--from', 'cursor']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(
      `no cursor configuration found (looked in ${join(userHome, '.cursor', 'mcp.json')}`,
    );
    expect(missing.stderr).toContain('pass --file <path>');

    await put(
      join(userHome, '.claude.json'),
      JSON.stringify({
        mcpServers: { user_one: { type: 'stdio', command: 'u' } },
        projects: {
          [sandbox.project]: { mcpServers: { local_one: { command: 'l', args: ['${X:-1}'] } } },
        },
      }),
    );
    await put(
      join(sandbox.project, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          web: {
            type: 'http',
            url: 'https://x.example/mcp',
            headers: { 'X-Key': '${KEY}' },
            // A client registered by hand; its secret lives in Claude Code's keychain.
            oauth: {
              clientId: 'cc-web',
              callbackPort: 8123,
              authServerMetadataUrl: 'https://a.example/m',
            },
          },
        },
      }),
    );
    // User servers go to ~/.clat/mcp.json; the project's own (its .mcp.json and Claude Code's
    // per-project "local" entries) never do, or they would start in every project.
    const result = await run(['mcp', 'import', '--from', 'claude-code', '--json']);
    const report = parseJsonOutput<ImportReport>(result);
    expect(report.servers.map((server) => [server.name, server.action])).toEqual([
      ['user_one', 'add'],
      ['local_one', 'skip'],
      ['web', 'skip'],
    ]);
    const projectFile = join(sandbox.project, '.clat', 'mcp.json');
    expect(report.servers[1]?.reason).toBe(
      `a server of this project only (claude-code's per-project entry); to import it into ${projectFile}, run "clat mcp import --from claude-code --scope project"`,
    );
    expect(Object.keys(((await sandbox.readMcp()) as { mcpServers: object }).mcpServers)).toEqual([
      'user_one',
    ]);
    // The named command imports them into the project's own file, and leaves the user's alone.
    const project = await run(['mcp', 'import', '--from', 'claude-code', '--scope', 'project']);
    expect(project.code, project.stderr).toBe(0);
    expect(project.stdout).toContain(`Wrote 2 servers to ${projectFile}`);
    expect(project.stdout).toContain('user_one  skipped: a user server;');
    const written = JSON.parse(await readFile(projectFile, 'utf8')) as {
      mcpServers: Record<string, unknown>;
    };
    expect(written.mcpServers.local_one).toEqual({ command: 'l', args: ['${X:-1}'] });
    expect(written.mcpServers.web).toEqual({
      url: 'https://x.example/mcp',
      headers: { 'X-Key': '${KEY}' },
      oauth: { clientId: 'cc-web', callbackPort: 8123 },
    });
    expect(project.stdout).toContain(
      `a client secret of "oauth.clientId" is not in claude-code's file: if the client has one, add the entry again with --client-secret (see clat mcp add --help)`,
    );
    expect(project.stdout).toContain(
      '"oauth.authServerMetadataUrl" was not imported: CLAT discovers the authorization server from the MCP server',
    );
    expect(Object.keys(((await sandbox.readMcp()) as { mcpServers: object }).mcpServers)).toEqual([
      'user_one',
    ]);

    // A copy of ~/.claude.json under another name reads the same: its per-project entry is
    // found (and named as the project's), not dropped without a word.
    const copy = join(sandbox.root, 'claude-backup.json');
    await writeFile(copy, await readFile(join(userHome, '.claude.json')));
    const fromCopy = parseJsonOutput<ImportReport>(
      await run(['mcp', 'import', '--from', 'claude-code', '--file', copy, '--dry-run', '--json']),
    );
    const local = fromCopy.servers.find((server) => server.name === 'local_one');
    expect(local?.reason).toContain(
      "a server of this project only (claude-code's per-project entry)",
    );

    const badToml = join(sandbox.root, 'broken.toml');
    await writeFile(badToml, '[mcp_servers.x\ncommand = 1');
    const broken = await run(['mcp', 'import', '--from', 'codex', '--file', badToml]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain(`${badToml}: not valid TOML`);
  });
});
