/**
 * Trusted Project Scope and the background mount through the real `clat` binary: nothing starts
 * before trust; servers connect in parallel; one failing server is isolated and reported with
 * its redacted stderr tail; `clat mcp` text and JSON views.
 */
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_FIXTURES, EVERYTHING_SERVER, parseJsonOutput, useCliSandbox } from './support.js';

interface StatusJson {
  configured: number;
  connecting: number;
  connected: number;
  failed: number;
  frozen: boolean;
  servers: {
    name: string;
    transport: string;
    state: string;
    protocolVersion?: string;
    era?: string;
    tools: number;
    failure?: string;
    stderrTail: string[];
  }[];
}

const sandbox = useCliSandbox();

/** A "server" whose only effect is to create `file`: proof that it was (or was not) spawned. */
function spawnProbe(file: string) {
  return sandbox.node(join(CLI_FIXTURES, 'touch-and-exit.mjs'), file);
}

describe('project trust', () => {
  it('spawns nothing before the project is trusted, then mounts after clat trust', async () => {
    const marker = join(sandbox.root, 'spawned');
    await sandbox.writeMcp({ probe: spawnProbe(marker) });
    for (const command of [['mcp'], ['tools'], ['call', 'read_file', '{"path":"README.md"}']]) {
      const denied = await sandbox.run(command);
      expect(denied.code).toBe(1);
      expect(denied.stderr).toContain(`project ${sandbox.project} is not trusted`);
      expect(denied.stderr).toContain('clat trust');
    }
    expect(existsSync(marker)).toBe(false);

    const trusted = await sandbox.run(['trust']);
    expect(trusted.stdout).toBe(`Trusted: ${sandbox.project}\n`);
    expect((await sandbox.run(['trust', '--list'])).stdout).toBe(`${sandbox.project}\n`);
    await sandbox.run(['mcp']);
    expect(existsSync(marker)).toBe(true);

    await sandbox.run(['trust', '--remove']);
    const again = await sandbox.run(['mcp']);
    expect(again.code).toBe(1);
  });

  it('--remove revokes the trust of a deleted directory, so a new one at its path is untrusted', async () => {
    const gone = join(sandbox.root, 'gone');
    await mkdir(gone);
    expect((await sandbox.run(['trust', gone])).stdout).toBe(`Trusted: ${gone}\n`);
    await rm(gone, { recursive: true });
    const removed = await sandbox.run(['trust', '--remove', gone]);
    expect(removed.stderr).toBe('');
    expect(removed.stdout).toBe(`Trust revoked: ${gone}\n`);
    expect((await sandbox.run(['trust', '--list'])).stdout).toBe('');
    expect((await sandbox.run(['trust', '--remove', gone])).stdout).toBe(`Not trusted: ${gone}\n`);

    await mkdir(gone);
    await sandbox.writeMcp({});
    const checkout = await sandbox.run(['mcp'], { cwd: gone });
    expect(checkout.code).toBe(1);
    expect(checkout.stderr).toContain(`project ${gone} is not trusted`);
  });

  it('--trust trusts one invocation without recording it', async () => {
    await sandbox.writeMcp({});
    expect((await sandbox.run(['mcp', '--trust'])).code).toBe(0);
    expect((await sandbox.run(['trust', '--list'])).stdout).toBe('');
  });
});

describe('clat mcp status', () => {
  it('mounts real servers in parallel and isolates a failing one with a redacted stderr tail', async () => {
    await sandbox.writeMcp({
      mcpServers: {
        notes: sandbox.notesServer(),
        everything: sandbox.node(EVERYTHING_SERVER, 'stdio'),
        broken: {
          ...sandbox.node(join(CLI_FIXTURES, 'leaky-crash.mjs')),
          env: {
            LEAKY_TOKEN: 'tok-0123456789abcdef',
            LOG_LEVEL: 'info',
            DATA_FILE: '/srv/leaky/data.json',
          },
        },
      },
    });
    const result = await sandbox.run(['mcp', '--json', '--trust']);
    // One configured server failed: the status still prints, and the exit code says so.
    expect(result.code).toBe(1);
    const status = parseJsonOutput<StatusJson>(result);
    expect(status).toMatchObject({ configured: 3, connecting: 0, connected: 2, failed: 1 });
    const byName = Object.fromEntries(status.servers.map((server) => [server.name, server]));
    expect(byName.notes).toMatchObject({ transport: 'stdio', state: 'connected', tools: 5 });
    expect(byName.notes?.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(byName.everything?.state).toBe('connected');
    expect(byName.everything?.tools).toBeGreaterThan(5);
    const broken = byName.broken;
    expect(broken?.state).toBe('failed');
    expect(broken?.failure).toContain('broken');
    expect(broken?.stderrTail).toEqual(
      expect.arrayContaining([
        'leaky-crash: using api_key=[REDACTED]',
        'leaky-crash: token [REDACTED]',
        'leaky-crash: log level info, data in /srv/leaky/data.json',
        'leaky-crash: cannot start: missing database',
      ]),
    );
    // Neither the key-shaped value nor the configured env secret leaks anywhere.
    expect(result.stdout).not.toContain('sk-live-abcdefghijklmnop');
    expect(result.stdout).not.toContain('tok-0123456789abcdef');
    expect(result.stderr).not.toContain('sk-live-abcdefghijklmnop');

    const text = await sandbox.run(['mcp', '--trust']);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(
      /^MCP servers: 3 configured · 0 connecting · 2 connected · 1 failed/,
    );
    expect(text.stdout).toMatch(/notes\s+stdio\s+connected\s+\S+.*5 tools/);
    expect(text.stdout).toContain('error: ');
    // The error quotes the stderr tail; the text view does not print those lines twice.
    expect(text.stdout).toContain('leaky-crash: cannot start: missing database');
    expect(text.stdout.split('leaky-crash: loading config')).toHaveLength(2);
    expect(text.stdout).not.toContain('stderr (last');
  });

  it('shows an empty configuration plainly', async () => {
    const result = await sandbox.run(['mcp', '--trust']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('MCP servers: 0 configured · 0 connecting · 0 connected');
    expect(result.stdout).toContain('clat mcp add');
  });
});
