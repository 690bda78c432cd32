/**
 * mcp.json as a secret-holding file (issue 14 items 3 and 6), through the real `clat` binary:
 * credentials in URLs and args are shown redacted by `clat mcp list/get`, the file is always
 * written 0600, unusable server names are refused, duplicate keys are reported.
 */
import { spawnSync } from 'node:child_process';
import {
  chmod,
  lstat,
  mkdir,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  truncate,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJsonOutput, useCliSandbox } from './support.js';

const sandbox = useCliSandbox();

const SECRETS = [
  'pw-0123456789',
  'qk-abcdef123456',
  'tok-secret-value-9',
  'ghp_0123456789abcdefghij',
];

describe('clat mcp list/get', () => {
  it('shows URL userinfo, secret query parameters and secret flag values redacted', async () => {
    await sandbox.writeMcp({
      mcpServers: {
        web: { url: 'https://user:pw-0123456789@mcp.example/mcp?api_key=qk-abcdef123456&page=2' },
        gh: { url: 'https://ghp_0123456789abcdefghij@git.example/mcp' },
        local: { command: 'server', args: ['--token', 'tok-secret-value-9', '--port', '8080'] },
      },
    });
    for (const args of [
      ['mcp', 'list'],
      ['mcp', 'list', '--json'],
      ['mcp', 'get', 'web'],
      ['mcp', 'get', 'local', '--json'],
    ]) {
      const result = await sandbox.run(args);
      expect(result.code, result.stderr).toBe(0);
      for (const secret of SECRETS)
        expect(`${result.stdout}${result.stderr}`).not.toContain(secret);
    }
    const listed = parseJsonOutput<{ servers: { name: string; url?: string; args?: string[] }[] }>(
      await sandbox.run(['mcp', 'list', '--json']),
    );
    const byName = Object.fromEntries(listed.servers.map((server) => [server.name, server]));
    expect(byName.web?.url).toBe(
      'https://user:[REDACTED]@mcp.example/mcp?api_key=[REDACTED]&page=2',
    );
    expect(byName.local?.args).toEqual(['--token', '[REDACTED]', '--port', '8080']);
  });
});

describe('a key in the path of an HTTP server URL', () => {
  // Zapier-style: the URL's path is the credential.
  const TOKEN = 'ZjY4MzE2NDItN2U1Ni00YjQ0LWE3ODAtNDk0OTc0NjA2ZDE5';

  it('is shown as … by clat mcp, clat mcp --json and clat mcp list', async () => {
    await sandbox.writeMcp({
      mcpServers: { zap: { url: `http://127.0.0.1:1/api/mcp/s/${TOKEN}/mcp` } },
    });
    const status = await sandbox.run(['mcp', '--json', '--trust']);
    const text = await sandbox.run(['mcp', '--trust']);
    const listed = await sandbox.run(['mcp', 'list', '--json']);
    for (const result of [status, text, listed]) {
      expect(`${result.stdout}${result.stderr}`).not.toContain(TOKEN);
    }
    const [server] = parseJsonOutput<{ servers: { target: string }[] }>(status).servers;
    expect(server?.target).toBe('http://127.0.0.1:1/api/mcp/s/…/mcp');
    expect(text.stdout).toContain('http://127.0.0.1:1/api/mcp/s/…/mcp');
    const [entry] = parseJsonOutput<{ servers: { url: string }[] }>(listed).servers;
    expect(entry?.url).toBe('http://127.0.0.1:1/api/mcp/s/…/mcp');
  });
});

describe('clat mcp add', () => {
  it('writes mcp.json 0600 even when it existed 0644', async () => {
    await sandbox.writeMcp({ mcpServers: {} });
    const file = join(sandbox.home, 'mcp.json');
    await chmod(file, 0o644);
    const added = await sandbox.run([
      'mcp',
      'add',
      'docs',
      '--url',
      'https://mcp.example/mcp',
      '--header',
      'Authorization: Bearer sk-header-secret-0123',
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('--force names what of the replaced entry was not given again, never its values', async () => {
    await sandbox.writeMcp({
      mcpServers: {
        remote: {
          url: 'http://127.0.0.1:1/mcp',
          headers: { 'X-Team': 'blue-team-value', Authorization: 'Bearer keep-me-0123456789' },
          disabled: true,
        },
      },
    });
    // The same add twice: the first replaces the entry above, the second its own result.
    const add = [
      'mcp',
      'add',
      'remote',
      'http://127.0.0.1:2/mcp',
      '--header',
      'Authorization: Bearer new-token-0123456789',
      '--force',
    ];
    const replaced = await sandbox.run(add);
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(replaced.stdout).toContain(
      '--force replaced the whole entry: its header "X-Team", "disabled" were not given again and are gone; add them again if the server needs them',
    );
    expect(replaced.stdout).not.toContain('blue-team-value');
    // An add that replaces nothing, or gives everything again, says nothing of the kind.
    const again = await sandbox.run(add);
    expect(again.stdout).not.toContain('replaced the whole entry');
  });

  it.each([
    ['__proto__', /reserved word/],
    ['../x', /must not contain "\/"/],
    ['a/b', /must not contain "\/"/],
    ['bad\u001b[2Jname', /control or invisible characters/],
    ['rtl\u202ename', /control or invisible characters/],
  ])('refuses the server name %j with a clear error and writes nothing', async (name, why) => {
    await sandbox.writeMcp({ mcpServers: { keep: { command: 'keep-me' } } });
    const before = await readFile(join(sandbox.home, 'mcp.json'), 'utf8');
    const result = await sandbox.run(['mcp', 'add', name, '--', 'node', 'server.mjs']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(why);
    expect(result.stderr).toContain('mcp.json: server name');
    expect(result.stderr).not.toContain('\u001b');
    expect(await readFile(join(sandbox.home, 'mcp.json'), 'utf8')).toBe(before);
  });
});

describe('malformed --header, --env and --config', () => {
  it('name the flag and its position, never the text, which may hold a key', async () => {
    // No key shape: the redactor that guards every error line cannot recognise it.
    const key = 'zebra-FlagValue-4471';
    const cases: [string[], string][] = [
      [
        ['mcp', 'add', 'web', '--url', 'https://mcp.example/mcp', '--header', `: ${key}`],
        '--header number 1 must look like "Name: value"',
      ],
      [
        [
          'mcp',
          'add',
          'web',
          '--url',
          'https://mcp.example/mcp',
          '--header',
          'X-Ok: 1',
          '--header',
          `X-Key ${key}`,
        ],
        '--header number 2 must look like "Name: value"',
      ],
      [
        ['mcp', 'add', 'local', '--env', `=${key}`, '--', 'node'],
        '--env number 1 must look like NAME=value',
      ],
      [
        ['plugin', 'install', sandbox.project, '--config', key],
        '--config number 1 must look like key=value',
      ],
    ];
    for (const [args, expected] of cases) {
      const result = await sandbox.run(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(`${result.stdout}${result.stderr}`).not.toContain('FlagValue');
      expect(result.stderr).toContain(
        `${expected} (its text is not shown, since it may hold a key)`,
      );
    }
    // A key given twice is refused as mcp add refuses it, not silently the last one.
    const twice = await sandbox.run([
      'plugin',
      'install',
      sandbox.project,
      '--config',
      `api_key=${key}`,
      '--config',
      'api_key=other',
    ]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain(
      '--config "api_key" is given twice (the second would replace the first); give it once',
    );
    expect(twice.stderr).not.toContain('FlagValue');
  });
});

describe('duplicate keys', () => {
  it('are reported by list and /mcp, and edits refuse to drop one silently', async () => {
    const file = join(sandbox.home, 'mcp.json');
    const text =
      '{"mcpServers":{"dup":{"command":"first"},"other":{"command":"x","env":{"K":"1","K":"2"}},"dup":{"command":"second"}}}\n';
    await writeFile(file, text);
    const listed = await sandbox.run(['mcp', 'list']);
    expect(listed.stderr).toContain('mcpServers.dup: duplicate key');
    expect(listed.stderr).toContain('mcpServers.other.env.K: duplicate key');
    // As `clat mcp`: an entry skipped for a config issue fails the listing.
    expect(listed.code).toBe(1);

    const status = await sandbox.run(['mcp', '--trust']);
    expect(`${status.stdout}${status.stderr}`).toContain('mcpServers.dup: duplicate key');

    const added = await sandbox.run(['mcp', 'add', 'new', '--', 'node', 'x.mjs']);
    expect(added.code).not.toBe(0);
    expect(added.stderr).toContain('duplicate key mcpServers.other.env.K, mcpServers.dup');
    expect(await readFile(file, 'utf8')).toBe(text);
  });
});

describe('the model provider in config.json', () => {
  it('refuses credentials in baseUrl, naming the field and never the value', async () => {
    expect((await sandbox.run(['trust'])).code).toBe(0);
    await sandbox.writeConfig({
      provider: {
        kind: 'openai-compatible',
        vendor: 'local',
        baseUrl: 'https://me:zebra-umbrella-4471@llm.example/v1',
        model: 'm',
      },
    });
    // Refused by what uses the model, a warning for the rest: named, never with the value.
    const refused = await sandbox.run(['exec', 'hello']);
    const warned = await sandbox.run(['tools']);
    expect(refused.code).not.toBe(0);
    expect(warned.code).toBe(0);
    for (const result of [refused, warned]) {
      expect(`${result.stdout}${result.stderr}`).not.toContain('zebra-umbrella');
      expect(result.stderr).toContain(
        'config.json: provider.baseUrl: must not carry credentials (user:password@); give the key with "apiKey" or "apiKeyEnv"',
      );
    }
  });
});

describe('a known vendor at its own endpoint', () => {
  it('without its key variable is named before any request, and the export it advises clears it', async () => {
    expect((await sandbox.run(['trust'])).code).toBe(0);
    await sandbox.writeConfig({
      provider: { kind: 'openai-compatible', vendor: 'glm', model: 'glm-4.6' },
    });
    const issue =
      'config.json: provider.apiKeyEnv: environment variable Z_AI_API_KEY is not set or empty; export it or set "apiKey"';
    // Nothing went out: without the check the request reached the vendor keyless (a 401, or
    // retries offline) and said nothing of the variable.
    const refused = await sandbox.run(['exec', 'hello'], { env: { Z_AI_API_KEY: '' } });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(issue);
    const warned = await sandbox.run(['tools'], { env: { Z_AI_API_KEY: '' } });
    expect(warned.code).toBe(0);
    expect(warned.stderr).toContain(issue);
    const exported = await sandbox.run(['tools'], { env: { Z_AI_API_KEY: 'zk-test-key' } });
    // (With the key, the GLM Coding Plan's remote servers mount too, and fail offline here.)
    expect(exported.stderr).not.toContain('provider.apiKeyEnv');
    expect(exported.stdout).toContain('read_file');
  });
});

describe('files that are not valid JSON', () => {
  // V8's JSON.parse message quotes about ten characters either side of the error, which here
  // would be the start of the key.
  const KEY = 'sk-proj-AbCdEfGh0123456789';

  it('are reported by line and column, never by quoting the text around the error', async () => {
    const broken = `{\n  "provider": {\n    "apiKey": ${KEY}\n  }\n}\n`;
    const cases: [string, string[], RegExp][] = [
      [
        'config.json',
        ['exec', 'hello'],
        /config\.json: not valid JSON \(unexpected character at line 3, column 15\)/,
      ],
      [
        'mcp.json',
        ['mcp', 'list'],
        /mcp\.json: \(root\): not valid JSON: unexpected character at line 3, column 15/,
      ],
      [
        'mcp.json',
        ['mcp', 'add', 'b', '--', 'node'],
        /mcp\.json: not valid JSON \(unexpected character at line 3, column 15\); fix it by hand/,
      ],
      [
        'trust.json',
        ['trust', '--list'],
        /trust\.json: not valid JSON \(unexpected character at line 3, column 15\)/,
      ],
    ];
    expect((await sandbox.run(['trust'])).code).toBe(0);
    for (const [file, args, expected] of cases) {
      await writeFile(join(sandbox.home, file), broken);
      const result = await sandbox.run(args);
      const output = `${result.stdout}${result.stderr}`;
      expect(output, args.join(' ')).not.toContain('sk-proj');
      expect(output, args.join(' ')).toMatch(expected);
      expect(result.code, args.join(' ')).not.toBe(0);
      if (args.join(' ') === 'mcp list')
        expect(result.stdout).toContain('(no usable servers; see below)');
      await rm(join(sandbox.home, file));
    }
  });
});

describe('a settings file that is no regular file, or too big', () => {
  it('is named at once: a FIFO never blocks a command, a huge file is not read', async () => {
    const file = join(sandbox.home, 'mcp.json');
    const fifo = spawnSync('mkfifo', [file]);
    if (fifo.status === 0) {
      for (const args of [
        ['mcp', 'list'],
        ['tools', '--trust'],
        ['mcp', 'add', 'x', '--', 'node'],
      ]) {
        const result = await sandbox.run(args, { timeoutMs: 15_000 });
        expect(result.signal, args.join(' ')).toBeNull();
        expect(result.code, args.join(' ')).toBe(1);
        expect(result.stdout + result.stderr).toContain(
          `${file}: cannot be read: it is a FIFO, not a regular file`,
        );
      }
      await rm(file);
    }
    await writeFile(file, '');
    await truncate(file, 8 * 1024 * 1024 + 1);
    const big = await sandbox.run(['mcp', 'list']);
    expect(big.code).toBe(1);
    expect(big.stdout + big.stderr).toContain(
      `${file}: cannot be read: it holds 8.0 MiB, over the 8 MiB CLAT reads from a settings file`,
    );
    await rm(file);
  });
});

describe('a settings file kept elsewhere or in its own layout', () => {
  it('is edited through its link, keeps its tabs and CRLF line ends, and may start with a BOM', async () => {
    // A dotfiles repository holds the real file, written by Windows Notepad: BOM, tabs, CRLF.
    const dotfiles = join(sandbox.root, 'dotfiles');
    await mkdir(dotfiles);
    const real = join(dotfiles, 'clat-mcp.json');
    await writeFile(
      real,
      '\ufeff{\r\n\t"mcpServers": {\r\n\t\t"keep": {\r\n\t\t\t"command": "keep-me"\r\n\t\t}\r\n\t}\r\n}\r\n',
    );
    const link = join(sandbox.home, 'mcp.json');
    await symlink(real, link);

    const listed = await sandbox.run(['mcp', 'list', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(
      parseJsonOutput<{ servers: { name: string }[] }>(listed).servers.map((server) => server.name),
    ).toEqual(['keep']);
    for (const args of [
      ['mcp', 'add', 'docs', '--', 'node', 'docs.mjs'],
      ['mcp', 'disable', 'docs'],
      ['mcp', 'add', 'gone', '--', 'node', 'gone.mjs'],
      ['mcp', 'remove', 'gone'],
    ]) {
      const result = await sandbox.run(args);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
    }
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readFile(real, 'utf8')).toBe(
      [
        '{',
        '\t"mcpServers": {',
        '\t\t"keep": {',
        '\t\t\t"command": "keep-me"',
        '\t\t},',
        '\t\t"docs": {',
        '\t\t\t"command": "node",',
        '\t\t\t"args": [',
        '\t\t\t\t"docs.mjs"',
        '\t\t\t],',
        '\t\t\t"disabled": true',
        '\t\t}',
        '\t}',
        '}',
        '',
      ].join('\r\n'),
    );
    expect(await readdir(dotfiles)).toEqual(['clat-mcp.json']);
    expect((await stat(real)).mode & 0o777).toBe(0o600);

    // A project's .clat/mcp.json checked out with CRLF and four spaces keeps both.
    const projectFile = join(sandbox.project, '.clat', 'mcp.json');
    await mkdir(join(sandbox.project, '.clat'));
    await writeFile(projectFile, '{\r\n    "mcpServers": {}\r\n}\r\n');
    const added = await sandbox.run([
      'mcp',
      'add',
      'team',
      '--scope',
      'project',
      '--',
      'node',
      't.mjs',
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect(await readFile(projectFile, 'utf8')).toBe(
      '{\r\n    "mcpServers": {\r\n        "team": {\r\n            "command": "node",\r\n            "args": [\r\n                "t.mjs"\r\n            ]\r\n        }\r\n    }\r\n}\r\n',
    );
  });
});
