/**
 * `${VAR}` references in an HTTP entry's `url` through the real binary: a whole-URL reference
 * (added with `clat mcp add --url`), a port reference written in mcp.json, Claude Code's
 * `${NAME:-default}/mcp` form through `clat mcp import`, and a reference that expands to no URL.
 * Before the fix all of them were refused when mcp.json was read, before any expansion.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type HttpFixture,
  startDualEraServer,
  stopAllHttpFixtures,
} from '../fixtures/http-servers/spawn.js';
import { parseJsonOutput, useCliSandbox } from './support.js';

let fixture: HttpFixture;

const sandbox = useCliSandbox(
  async () => {
    await sandbox.run(['trust']);
    fixture = await startDualEraServer();
  },
  { teardown: stopAllHttpFixtures },
);

interface Status {
  servers: { name: string; state: string; tools: number }[];
  configIssues: string[];
}

describe('${VAR} in an mcp.json url', () => {
  it('mounts a whole-URL reference and a port reference once expanded', async () => {
    const added = await sandbox.run(['mcp', 'add', 'whole', '--url', '${DOCS_URL}']);
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    await sandbox.writeMcp({
      ...((await sandbox.readMcp()) as { mcpServers: object }).mcpServers,
      port: { url: 'http://127.0.0.1:${DOCS_PORT}/mcp' },
    });
    const env = { DOCS_URL: `${fixture.origin}/mcp`, DOCS_PORT: String(fixture.port) };
    const result = await sandbox.run(['mcp', '--json'], { env });
    const status = parseJsonOutput<Status>(result);
    expect(status.configIssues).toEqual([]);
    expect(status.servers.map((server) => [server.name, server.state])).toEqual([
      ['whole', 'connected'],
      ['port', 'connected'],
    ]);
    expect(status.servers.every((server) => server.tools > 0)).toBe(true);
  });

  it('names the field of a reference that expands to no URL, without its value', async () => {
    await sandbox.writeMcp({ mcpServers: { whole: { url: '${DOCS_URL}' } } });
    const result = await sandbox.run(['mcp', '--json'], {
      env: { DOCS_URL: 'sk-not-a-url-0123456789' },
    });
    const status = parseJsonOutput<Status>(result);
    expect(status.servers).toEqual([]);
    expect(status.configIssues).toEqual([
      `${join(sandbox.home, 'mcp.json')}: whole.url: its variable references expand to a value that is not an absolute URL`,
    ]);
    expect(result.stdout + result.stderr).not.toContain('sk-not-a-url');
  });

  it('imports Claude Code\'s "${API_BASE_URL:-…}/mcp" and mounts it', async () => {
    const userHome = join(sandbox.root, 'user');
    await mkdir(userHome, { recursive: true });
    await writeFile(
      join(sandbox.project, '.mcp.json'),
      JSON.stringify({
        mcpServers: { api: { type: 'http', url: '${API_BASE_URL:-https://api.example.com}/mcp' } },
      }),
    );
    const env = { HOME: userHome, XDG_CONFIG_HOME: '' };
    // The project's .mcp.json is the project's own: imported into its .clat/mcp.json.
    const imported = await sandbox.run(
      ['mcp', 'import', '--from', 'claude-code', '--scope', 'project', '--json'],
      { env },
    );
    const report = parseJsonOutput<{ servers: { name: string; action: string }[] }>(imported);
    expect(report.servers.map((server) => [server.name, server.action])).toEqual([['api', 'add']]);
    const result = await sandbox.run(['mcp', '--json'], {
      env: { ...env, API_BASE_URL: fixture.origin },
    });
    expect(parseJsonOutput<Status>(result).servers).toMatchObject([
      { name: 'api', state: 'connected' },
    ]);
  });

  it('names fetch\'s reason for a port it refuses, not only "fetch failed"', async () => {
    // 6000 (X11) is on fetch's list of blocked ports: undici fails before connecting.
    await sandbox.writeMcp({ mcpServers: { x11: { url: 'http://127.0.0.1:${X_PORT}/mcp' } } });
    const result = await sandbox.run(['mcp', '--json'], { env: { X_PORT: '6000' } });
    const status = parseJsonOutput<{ servers: { name: string; failure?: string }[] }>(result);
    expect(status.servers[0]?.failure).toContain('fetch failed: bad port');
  });
});
