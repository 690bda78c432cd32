/**
 * `clat plugin install` on a terminal (tmux): a tools-only package asks y/N (no flag needed),
 * "n" installs nothing, "y" installs, and while it asks another command changes the store; an MCPB bundle asks for its missing required settings
 * (a sensitive one without echo).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertBuilt, CLAT_BIN, CliSandbox, REPO_ROOT } from '../cli/support.js';
import { hasTmux, TmuxSession } from '../cli/tmux.js';
import { createZip } from '../support/zip-writer.js';

let sandbox: CliSandbox;
let tmux: TmuxSession;

beforeAll(assertBuilt);
beforeEach(async () => {
  sandbox = new CliSandbox();
  await sandbox.setup();
  tmux = new TmuxSession(`clat-consent-${process.pid}-${Date.now()}`);
});
afterEach(async () => {
  tmux.kill();
  await sandbox.cleanup();
});

function install(...args: string[]): void {
  tmux.kill();
  tmux.start([process.execPath, CLAT_BIN, 'plugin', 'install', ...args], sandbox.project, {
    CLAT_HOME: sandbox.home,
    PATH: process.env.PATH ?? '',
  });
}

describe.skipIf(!hasTmux())('install consent on a terminal', () => {
  it('asks y/N for a tools-only package; n installs nothing, y installs', async () => {
    const notes = join(REPO_ROOT, 'plugins/mcp-notes/dist/package');
    const manifest = JSON.parse(await readFile(join(notes, 'clat-plugin.json'), 'utf8')) as {
      capabilities: Record<string, unknown>;
    };
    // mcp-notes also ships a static prompt; a copy that asks for tools only takes the y/N path.
    const dir = join(sandbox.root, 'tools-only');
    await mkdir(dir);
    const server = await readFile(join(notes, 'server.mjs'));
    await writeFile(join(dir, 'server.mjs'), server, { mode: 0o755 });
    const { createHash } = await import('node:crypto');
    await writeFile(
      join(dir, 'clat-plugin.json'),
      JSON.stringify({
        manifestVersion: 1,
        id: 'tools-only',
        name: 'Tools only',
        version: '1.0.0',
        runtime: {
          kind: 'mcp-stdio',
          entry: 'server.mjs',
          sha256: createHash('sha256').update(server).digest('hex'),
        },
        capabilities: { tools: manifest.capabilities.tools === true },
      }),
    );
    install(dir);
    await tmux.waitFor('tools-only 1.0.0 asks for: tools');
    await tmux.waitFor('Install and let it provide tools? [y/N]');
    tmux.line('n');
    await tmux.waitFor('capability tools was not granted [CAPABILITY_EXPANSION]');
    await tmux.waitFor('EXITED:3');

    install(dir);
    await tmux.waitFor('Install and let it provide tools? [y/N]');
    // While the question waits for the person, another terminal changes the store at once
    // (before, the question held the store's lease, and this failed with STORE_BUSY).
    const meanwhile = await sandbox.run([
      'plugin',
      'install',
      join(REPO_ROOT, 'plugins/mcp-notes/dist/package'),
      '--accept-capabilities',
    ]);
    expect(meanwhile.code, meanwhile.stderr).toBe(0);
    tmux.line('y');
    await tmux.waitFor('Installed tools-only 1.0.0');
    await tmux.waitFor('EXITED:0');
  });

  it('asks for a missing required MCPB setting', async () => {
    const bundle = join(sandbox.root, 'settings.mcpb');
    const server = 'process.stdin.resume();\n';
    await writeFile(
      bundle,
      createZip([
        {
          name: 'manifest.json',
          body: JSON.stringify({
            manifest_version: '0.2',
            name: 'settings-demo',
            version: '0.1.0',
            description: 'asks for a setting',
            author: { name: 'Fixture' },
            server: { type: 'node', entry_point: 'server/index.js' },
            user_config: {
              region: { type: 'string', title: 'Region', description: 'where', required: true },
              token: { type: 'string', title: 'Token', sensitive: true, required: true },
            },
          }),
        },
        { name: 'server/index.js', body: server },
      ]),
    );
    install(bundle, '--yes');
    await tmux.waitFor('Region (where) [region]:');
    tmux.line('eu-west');
    await tmux.waitFor('Token [token] (sensitive, not shown):');
    tmux.line('tok-Secret-42');
    await tmux.waitFor('Installed settings-demo 0.1.0');
    // The region was echoed as typed; the sensitive token never reached the screen.
    expect(tmux.capture()).toContain('eu-west');
    expect(tmux.capture()).not.toContain('tok-Secret-42');
    const registry = await readFile(join(sandbox.home, 'plugin-store', 'registry.json'), 'utf8');
    expect(JSON.parse(registry).packages['settings-demo'].active.config).toEqual({
      region: 'eu-west',
    });
    expect(registry).not.toContain('tok-Secret-42');
    const token = JSON.parse(registry).packages['settings-demo'].active.secrets;
    const secrets = await readFile(
      join(sandbox.home, 'plugin-secrets', `settings-demo.${token}.json`),
      'utf8',
    );
    expect(secrets).toContain('tok-Secret-42');
  });
});
