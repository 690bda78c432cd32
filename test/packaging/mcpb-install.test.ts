/**
 * MCP Bundles through the `clat` binary: a `.mcpb` zip (node server, `mcp_config` with
 * `${__dirname}` and `${user_config.*}`, a sensitive and a defaulted setting, declared tools) is
 * inspected, refused without its required setting, installed headless with `--config`, and its
 * tool is called; the sensitive value reaches the server but never clat's output or the registry.
 * Hostile zips (symlink, `..`, duplicate) and python bundles are refused clearly.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClatExit, execClat } from '../support/clat-bin.js';
import { createZip, type ZipEntry } from '../support/zip-writer.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LEGACY_LIB = join(REPO_ROOT, 'test/fixtures/mcp-servers/legacy-lib.mjs');
const SECRET = 'sk-mcpb-e2e-4f1c9a77d2';

let work: string;
let home: string;
let project: string;

function clat(...args: string[]): Promise<ClatExit> {
  return execClat(args, { cwd: project, home });
}

const SERVER = `import { serveLegacy, text } from './legacy-lib.mjs';
import { createHash } from 'node:crypto';
const greeting = process.argv[process.argv.indexOf('--greeting') + 1];
serveLegacy({
  name: 'weather',
  tools: [{
    name: 'whoami',
    annotations: { readOnlyHint: true, openWorldHint: false },
    handler: () => text(JSON.stringify({
      greeting,
      keyDigest: createHash('sha256').update(process.env.WEATHER_API_KEY ?? '').digest('hex').slice(0, 16),
      dirname: process.env.BUNDLE_DIR,
      cwd: process.cwd(),
    })),
  }],
});
`;

function manifest(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    manifest_version: '0.3',
    name: 'weather',
    display_name: 'Weather',
    version: '1.2.0',
    description: 'Weather tools',
    author: { name: 'Fixture' },
    server: {
      type: 'node',
      entry_point: 'server/index.mjs',
      mcp_config: {
        command: 'node',
        args: ['${__dirname}/server/index.mjs', '--greeting', '${user_config.greeting}'],
        env: { WEATHER_API_KEY: '${user_config.api_key}', BUNDLE_DIR: '${__dirname}' },
      },
    },
    tools: [{ name: 'whoami', description: 'Who am I' }],
    prompts: [{ name: 'forecast', text: 'Forecast for ${arguments.city}' }],
    user_config: {
      api_key: { type: 'string', title: 'API key', sensitive: true, required: true },
      greeting: { type: 'string', title: 'Greeting', default: 'hello' },
    },
    compatibility: { platforms: ['darwin', 'linux', 'win32'], runtimes: { node: '>=20' } },
    ...overrides,
  });
}

async function bundle(name: string, entries: ZipEntry[]): Promise<string> {
  const file = join(work, name);
  await writeFile(file, createZip(entries));
  return file;
}

async function goodEntries(overrides: Record<string, unknown> = {}): Promise<ZipEntry[]> {
  return [
    { name: 'manifest.json', body: manifest(overrides) },
    { name: 'server/index.mjs', body: SERVER },
    { name: 'server/legacy-lib.mjs', body: await readFile(LEGACY_LIB) },
  ];
}

beforeAll(async () => {
  if (!existsSync(join(REPO_ROOT, 'apps/clat/dist/main.js'))) {
    throw new Error('apps/clat/dist is missing; run "pnpm build" before the e2e tests');
  }
  work = await mkdtemp(join(tmpdir(), 'clat-mcpb-'));
  home = join(work, 'home');
  project = join(work, 'project');
  await mkdir(project, { recursive: true });
  expect((await clat('trust')).code).toBe(0);
});

afterAll(async () => {
  if (work !== undefined) {
    execFileSync('chmod', ['-R', 'u+rwX', work]);
    await rm(work, { recursive: true, force: true });
  }
});

describe('MCPB bundles', () => {
  it('inspects, installs with user config and runs; the sensitive value is never printed', async () => {
    const file = await bundle('weather.mcpb', await goodEntries());
    const inspected = await clat('plugin', 'inspect', file, '--json');
    expect(inspected.code, inspected.stderr).toBe(0);
    expect(JSON.parse(inspected.stdout)).toMatchObject({
      id: 'weather',
      name: 'Weather',
      version: '1.2.0',
      runtime: 'mcp-stdio',
      entry: 'server/index.mjs',
      capabilities: ['tools'],
      settings: ['api_key (string, required, sensitive)', 'greeting (string)'],
      mcpb: 'manifest 0.3, server node, unsigned',
      declaredTools: ['whoami'],
      declaredPrompts: ['forecast'],
    });

    const missing = await clat('plugin', 'install', file, '--yes');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      'clat: config for weather: missing required setting(s) "api_key" (use --config key=value) [CONFIG_INVALID]\n',
    );
    const installed = await clat(
      'plugin',
      'install',
      file,
      '--yes',
      '--config',
      `api_key=${SECRET}`,
    );
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain('Installed weather 1.2.0');

    const registry = await readFile(join(home, 'plugin-store', 'registry.json'), 'utf8');
    expect(registry).not.toContain(SECRET);
    const token = JSON.parse(registry).packages.weather.active.secrets;
    const secrets = join(home, 'plugin-secrets', `weather.${token}.json`);
    expect((await stat(secrets)).mode & 0o777).toBe(0o600);
    expect(await readFile(secrets, 'utf8')).toContain(SECRET);

    const call = await clat('call', 'mcp_weather_whoami', '{}');
    expect(call.code, call.stderr).toBe(0);
    const result = JSON.parse(JSON.parse(call.stdout).content?.[0]?.text ?? call.stdout) as Record<
      string,
      string
    >;
    expect(result.greeting).toBe('hello');
    expect(result.keyDigest).toBe(createHash('sha256').update(SECRET).digest('hex').slice(0, 16));
    expect(result.dirname).toBe(result.cwd);
    expect(result.dirname).toContain(join(home, 'plugin-store', 'artifacts', 'weather'));

    const outputs = [
      installed,
      call,
      await clat('plugin', 'list'),
      await clat('plugin', 'list', '--json'),
      await clat('mcp'),
    ];
    for (const output of outputs) expect(output.stdout + output.stderr).not.toContain(SECRET);
  }, 180_000);

  it('configure shows the installed settings and changes them without the bundle', async () => {
    // Installed by the test before; its .mcpb is gone, as a downloaded bundle often is.
    await rm(join(work, 'weather.mcpb'));
    const whoami = async () => {
      const call = await clat('call', 'mcp_weather_whoami', '{}');
      expect(call.code, call.stderr).toBe(0);
      return JSON.parse(JSON.parse(call.stdout).content?.[0]?.text ?? call.stdout) as Record<
        string,
        string
      >;
    };
    const shown = await clat('plugin', 'configure', 'weather');
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toBe(
      'weather 1.2.0 settings:\n' +
        '  api_key   set (sensitive, not shown)  API key\n' +
        '  greeting  not set (default "hello")  Greeting\n' +
        'Change one with: clat plugin configure weather --config <key>=<value>\n',
    );
    const listed = await clat('plugin', 'configure', 'weather', '--json');
    expect(JSON.parse(listed.stdout)).toEqual({
      id: 'weather',
      version: '1.2.0',
      settings: [
        {
          key: 'api_key',
          type: 'string',
          title: 'API key',
          required: true,
          sensitive: true,
          set: true,
        },
        { key: 'greeting', type: 'string', title: 'Greeting', default: 'hello', set: false },
      ],
    });

    // `update <id>` of a bundle installed from a file cannot find it again: the message says
    // configure changes settings alone, and configure does.
    const update = await clat('plugin', 'update', 'weather', '--config', 'greeting=howdy');
    expect(update.code).toBe(1);
    expect(update.stderr).toContain(
      'or, to change only its settings, "clat plugin configure weather" with the same --config flags',
    );
    const NEW_SECRET = 'sk-mcpb-e2e-rotated-91be';
    const changed = await clat(
      'plugin',
      'configure',
      'weather',
      '--config',
      'greeting=howdy',
      '--config',
      `api_key=${NEW_SECRET}`,
    );
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stdout).toBe(
      'Configured weather 1.2.0: its new settings are saved. Restart CLAT to apply.\n',
    );
    const result = await whoami();
    expect(result.greeting).toBe('howdy');
    expect(result.keyDigest).toBe(
      createHash('sha256').update(NEW_SECRET).digest('hex').slice(0, 16),
    );
    const again = await clat('plugin', 'configure', 'weather', '--config', 'greeting=howdy');
    expect(again.stdout).toBe('weather 1.2.0 already has these settings; nothing changed\n');

    // A setting it does not have is refused and changes nothing; so is --json with new values.
    const registry = join(home, 'plugin-store', 'registry.json');
    const before = await readFile(registry, 'utf8');
    const typo = await clat('plugin', 'configure', 'weather', '--config', 'greting=hi');
    expect(typo.code).toBe(1);
    expect(typo.stderr).toBe(
      'clat: weather has no setting "greting" (it has api_key, greeting) [CONFIG_INVALID]\n',
    );
    const mixed = await clat('plugin', 'configure', 'weather', '--json', '--config', 'greeting=x');
    expect(mixed.code).toBe(2);
    expect(await readFile(registry, 'utf8')).toBe(before);
    const missing = await clat('plugin', 'configure', 'nope');
    expect(missing.stderr).toBe('clat: nope is not installed [PACKAGE_STATE]\n');

    const outputs = [shown, listed, update, changed, again, typo];
    for (const output of outputs) {
      expect(output.stdout + output.stderr).not.toContain(SECRET);
      expect(output.stdout + output.stderr).not.toContain(NEW_SECRET);
    }
    expect(await readFile(registry, 'utf8')).not.toContain(NEW_SECRET);
  }, 180_000);

  it('refuses hostile zips and python servers with one clear line', async () => {
    const good = await goodEntries();
    const cases: [string, ZipEntry[], string][] = [
      [
        'symlink',
        [...good, { name: 'server/link', body: '/etc/passwd', mode: 0o120777 }],
        'entry "server/link" is a symlink',
      ],
      [
        'escape',
        [...good, { name: '../evil.js', body: 'x' }],
        'entry "../evil.js" must not contain ".." components',
      ],
      [
        'duplicate',
        [...good, { name: 'server/index.mjs', body: 'x' }],
        'entry "server/index.mjs" appears twice',
      ],
    ];
    for (const [name, entries, message] of cases) {
      const file = await bundle(`${name}.mcpb`, entries);
      const result = await clat('plugin', 'install', file, '--yes');
      expect(result.code, name).toBe(1);
      expect(result.stderr, name).toBe(`clat: ${file}: ${message} [MCPB_INVALID]\n`);
    }
    const python = await bundle(
      'python.mcpb',
      await goodEntries({
        server: {
          type: 'python',
          entry_point: 'server/main.py',
          mcp_config: { command: 'python' },
        },
      }),
    );
    const refused = await clat('plugin', 'install', python, '--yes');
    expect(refused.stderr).toBe(
      `clat: ${python} manifest.json: server.type python needs a Python runtime, which clat does not provide; only node and binary bundles can be installed [MCPB_INVALID]\n`,
    );
  }, 120_000);
});
