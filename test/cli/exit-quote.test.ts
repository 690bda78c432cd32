/**
 * A stdio server that cannot start, the way `npx` fails when npm cannot fetch the package: npm
 * prints its error, then a pointer to its log, and exits 1, for the probe and again for the
 * legacy handshake. `clat mcp` names the server once, quotes the failure once, and quotes npm's
 * error rather than the path of its log.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliSandbox } from './support.js';

const sandbox = useCliSandbox(async () => {
  const script = join(sandbox.root, 'npx-fails.mjs');
  await writeFile(
    script,
    [
      "process.stderr.write('npm error code ETARGET\\n');",
      "process.stderr.write('npm error notarget No matching version found for @acme/mcp@9.9.9.\\n');",
      'process.stderr.write(`npm error A complete log of this run can be found in: /tmp/_logs/${Date.now()}-debug-0.log\\n`);',
      'process.exit(1);',
      '',
    ].join('\n'),
  );
  await sandbox.run(['trust']);
  await sandbox.writeMcp({ mcpServers: { acme: sandbox.node(script) } });
});

describe('a stdio server that exits at start', () => {
  it('is quoted once, by its error and not by the path of a log', async () => {
    const status = await sandbox.run(['mcp', '--json']);
    expect(status.code).toBe(1);
    const [server] = (JSON.parse(status.stdout) as { servers: { failure: string }[] }).servers;
    expect(server?.failure).toMatch(
      /^MCP server "acme" failed both handshakes: modern probe and legacy initialize both: closed the connection: exited with code 1 \(stderr: npm error notarget No matching version found for @acme\/mcp@9\.9\.9\.\)/,
    );
    expect(server?.failure.split('MCP server "acme"')).toHaveLength(2);
    const text = await sandbox.run(['mcp']);
    expect(text.stdout).toContain(
      'error: MCP server "acme" failed both handshakes: modern probe and legacy initialize both: closed the connection: exited with code 1 (stderr: npm error notarget No matching version found for @acme/mcp@9.9.9.)',
    );
  });
});
