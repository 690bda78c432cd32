/**
 * Other clients' commands typed at `clat`, as their READMEs print them (`claude mcp serve`,
 * `claude mcp add-from-claude-desktop`, `gemini extensions install …`, `claude plugin marketplace
 * add …`, a package name or URL without `npm:`): each is answered with what CLAT does instead, and
 * the command the answer names works as said. The binary before this change only said "unknown
 * subcommand", or for a package name "<cwd>/<name> does not exist (ENOENT)".
 */
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { GATEWAY_BIN } from '../gateway/support.js';
import { NOTES_SERVER, useCliSandbox } from './support.js';

const sandbox = useCliSandbox();

describe("other clients' commands", () => {
  it('answers their mcp subcommands with the CLAT command, and that command works', async () => {
    const xdg = join(sandbox.root, 'xdg');
    const env = { XDG_CONFIG_HOME: xdg };

    const desktop = await sandbox.run(['mcp', 'add-from-claude-desktop'], { env });
    expect(desktop.code).toBe(2);
    expect(desktop.stderr).toBe(
      "clat: clat mcp add-from-claude-desktop: that is Claude Code's command; CLAT copies Claude Desktop's servers with: clat mcp import --from claude-desktop (--dry-run shows what it would add) [CLI_USAGE]\n",
    );
    // The named command, on Claude Desktop's documented file.
    await mkdir(join(xdg, 'Claude'), { recursive: true });
    await writeFile(
      join(xdg, 'Claude', 'claude_desktop_config.json'),
      JSON.stringify({
        mcpServers: { notes: { command: process.execPath, args: [NOTES_SERVER] } },
      }),
    );
    const dry = await sandbox.run(['mcp', 'import', '--from', 'claude-desktop', '--dry-run'], {
      env,
    });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('notes');
    const imported = await sandbox.run(['mcp', 'import', '--from', 'claude-desktop'], { env });
    expect(imported.code, imported.stderr).toBe(0);
    expect(await sandbox.readMcp()).toMatchObject({
      mcpServers: { notes: { args: [NOTES_SERVER] } },
    });

    const serve = await sandbox.run(['mcp', 'serve']);
    expect(serve.code).toBe(2);
    expect(serve.stderr).toContain(
      "Claude Code's mcp serve offers its own tools over MCP; CLAT serves a trusted project's tools (its servers, plugins and native tools) as one MCP server with clat-gateway --project <dir> (npm package @clat/gateway)",
    );
    const gateway = await promisify(execFile)(process.execPath, [GATEWAY_BIN, '--help']);
    expect(gateway.stdout).toContain('--project <dir>');

    const reset = await sandbox.run(['mcp', 'reset-project-choices']);
    expect(reset.code).toBe(2);
    expect(reset.stderr).toContain(
      '(clat trust --remove takes that back) and keeps the tools you always allow in it (clat approvals reset forgets them)',
    );
    expect((await sandbox.run(['trust'])).code).toBe(0);
    const untrusted = await sandbox.run(['trust', '--remove']);
    expect(untrusted.code, untrusted.stderr).toBe(0);
    expect(untrusted.stdout).toContain('Trust revoked');
    const forgot = await sandbox.run(['approvals', 'reset']);
    expect(forgot.code, forgot.stderr).toBe(0);

    // A word no client uses still gets "did you mean".
    const typo = await sandbox.run(['mcp', 'lsit']);
    expect(typo.stderr).toContain('unknown subcommand "lsit" (did you mean "list"?)');
  });

  it("answers Gemini CLI's extensions and Claude Code's plugin marketplaces with clat plugin", async () => {
    const extensions = await sandbox.run(['extensions', 'install', 'https://github.com/acme/ext']);
    expect(extensions.code).toBe(2);
    expect(extensions.stderr).toBe(
      "clat: clat extensions: Gemini CLI's extensions are CLAT's plugins: clat plugin install <source> (npm:<name>, a directory, a .clatpkg, an MCPB bundle or a .wasm component), clat plugin list [CLI_USAGE]\n",
    );
    const list = await sandbox.run(['plugin', 'list']);
    expect(list.code, list.stderr).toBe(0);

    for (const [words, answer] of [
      [
        ['plugin', 'marketplace', 'add', 'acme/plugins'],
        'clat plugin marketplace: CLAT has no plugin marketplaces; a plugin installs from its source: clat plugin install npm:<name>, a directory, a .clatpkg, an MCPB bundle or a .wasm component',
      ],
      [
        ['plugin', 'search', 'memory'],
        'clat plugin search: CLAT has no plugin index; MCP servers published to npm install with clat plugin install npm:<name>',
      ],
    ] as const) {
      const refused = await sandbox.run([...words]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(answer);
    }
  });

  it('says what a source that is no path meant: an npm name keeps the line typed, a URL says to download', async () => {
    const scoped = await sandbox.run([
      'plugin',
      'install',
      '--yes',
      '@modelcontextprotocol/server-memory@^2',
      '--env',
      'MEMORY_FILE_PATH=${CLAT_PLUGIN_DATA}/m.jsonl',
      '--',
      '--flag',
    ]);
    expect(scoped.code).toBe(2);
    expect(scoped.stderr).toBe(
      `clat: clat plugin: "@modelcontextprotocol/server-memory@^2" is no file or directory in ${sandbox.project}; an npm package is named with npm: in front: clat plugin install --yes 'npm:@modelcontextprotocol/server-memory@^2' --env 'MEMORY_FILE_PATH=\${CLAT_PLUGIN_DATA}/m.jsonl' -- --flag; see "clat plugin --help" [CLI_USAGE]\n`,
    );
    const bundle = await sandbox.run(['plugin', 'install', 'https://example.com/dl/notes.mcpb']);
    expect(bundle.stderr).toContain(
      'CLAT installs from local files, not URLs: download it, then clat plugin install ./notes.mcpb',
    );
    const repo = await sandbox.run(['plugin', 'install', 'github:acme/server']);
    expect(repo.stderr).toContain(
      'CLAT installs from npm (npm:<name>) and from local files, not from URLs or git repositories',
    );
    // A path that is not there and names nothing else keeps the store's own error.
    const missing = await sandbox.run(['plugin', 'install', './gone']);
    expect(missing.stderr).toBe(
      `clat: ${join(sandbox.project, 'gone')} does not exist (ENOENT) [TREE_PATH_INVALID]\n`,
    );
    // Nothing was installed by any of them.
    expect((await sandbox.run(['plugin', 'list', '--json'])).stdout).toBe('[]\n');
  });
});
