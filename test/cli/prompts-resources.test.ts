/**
 * Server prompts and resources through the real `clat` binary against server-everything and a
 * hostile fixture: `clat prompts` (slash commands, skipped names), `clat prompts get` (arguments
 * by name and position, required ones checked), `clat resources` (every page, templates),
 * `clat resources read` (text, text blobs, binary placeholder, the 1 MiB result limit), the sanitiser on
 * every terminal path and exact `--json`.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_FIXTURES, EVERYTHING_SERVER, parseJsonOutput, useCliSandbox } from './support.js';

const ESC = '\u001b';
const DOCS = join(dirname(EVERYTHING_SERVER), 'docs');

const sandbox = useCliSandbox(async () => {
  await sandbox.writeMcp({
    everything: sandbox.node(EVERYTHING_SERVER, 'stdio'),
    catalog: sandbox.node(join(CLI_FIXTURES, 'catalog-server.mjs')),
  });
});

interface PromptsJson {
  servers: {
    name: string;
    prompts: {
      name: string;
      description?: string;
      arguments: { name: string; required: boolean }[];
      command: string | null;
      skipped?: string;
    }[];
  }[];
}

describe('clat prompts', () => {
  it('lists every server prompt as a slash command and says which names were skipped', async () => {
    const result = await sandbox.run(['prompts', '--trust']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe('5 prompts:');
    expect(
      lines.some((l) =>
        /^ {2}\/mcp__everything__args-prompt city \[state\] +A prompt with two arguments/.test(l),
      ),
    ).toBe(true);
    expect(result.stdout).toMatch(/\/mcp__everything__simple-prompt +A prompt with no arguments/);
    expect(result.stdout).toMatch(/\/mcp__catalog__greet who +Greets \\x1b\[31msomeone\\x1b\[0m$/m);
    expect(result.stdout).toContain(
      'skipped prompt "bad name/x" of catalog: the prompt name has characters a slash command cannot carry (allowed: A-Z a-z 0-9 _ . -)',
    );
    expect(result.stdout).not.toContain(ESC);
  });

  it('--json carries the exact server text, arguments in order and each command', async () => {
    const result = await sandbox.run(['prompts', 'catalog', '--trust', '--json']);
    expect(result.code).toBe(0);
    const json = parseJsonOutput<PromptsJson>(result);
    expect(json.servers).toEqual([
      {
        name: 'catalog',
        prompts: [
          {
            name: 'greet',
            description: `Greets ${ESC}[31msomeone${ESC}[0m`,
            arguments: [{ name: 'who', required: true }],
            command: '/mcp__catalog__greet',
          },
          {
            name: 'bad name/x',
            description: 'has a space and a slash',
            arguments: [],
            command: null,
            skipped:
              'the prompt name has characters a slash command cannot carry (allowed: A-Z a-z 0-9 _ . -)',
          },
        ],
      },
    ]);
  });

  it('renders a prompt with named and positional arguments, and checks required ones first', async () => {
    const named = await sandbox.run([
      'prompts',
      'get',
      'everything',
      'args-prompt',
      'state=TX',
      'Austin',
      '--trust',
    ]);
    expect(named.stderr).toBe('');
    expect(named.stdout).toBe("[user]\nWhat's weather in Austin, TX?\n");

    const json = parseJsonOutput<{ arguments: unknown; messages: unknown }>(
      await sandbox.run([
        'prompts',
        'get',
        'everything',
        'args-prompt',
        'Paris',
        '--trust',
        '--json',
      ]),
    );
    expect(json).toEqual({
      server: 'everything',
      prompt: 'args-prompt',
      arguments: { city: 'Paris' },
      messages: [{ role: 'user', content: [{ kind: 'text', text: "What's weather in Paris?" }] }],
    });

    // An embedded blob of UTF-8 text/plain is shown as its text.
    const embedded = await sandbox.run([
      'prompts',
      'get',
      'everything',
      'resource-prompt',
      'Blob',
      '2',
      '--trust',
    ]);
    expect(embedded.stdout).toMatch(
      /^\[user\]\nThis prompt includes the Blob resource with id: 2\. Please analyze the following resource:\n\[user\]\nResource 2: This is a base64 blob created at [^\n]+\n$/,
    );

    const missing = await sandbox.run(['prompts', 'get', 'everything', 'args-prompt', '--trust']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      'clat: prompt "args-prompt" needs argument "city"; give city=<value>, or values in the order city state [CLI_USAGE]\n',
    );
    // A mistyped argument name is refused (it used to fill "city" with "cty=Paris").
    const typo = await sandbox.run([
      'prompts',
      'get',
      'everything',
      'args-prompt',
      'cty=Paris',
      '--trust',
    ]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe(
      'clat: prompt "args-prompt" has no argument "cty" (its arguments: city, state); a value with "=" is given named: city=cty=Paris [CLI_USAGE]\n',
    );
    const extra = await sandbox.run([
      'prompts',
      'get',
      'everything',
      'simple-prompt',
      'x',
      '--trust',
    ]);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain('prompt "simple-prompt" takes no arguments; got "x"');

    const hostile = await sandbox.run(['prompts', 'get', 'catalog', 'greet', 'who=Ada', '--trust']);
    expect(hostile.stdout).toBe('[user]\nSay hello to Ada\\x1b[2J\n');
  });

  it('names an unknown server or prompt with the command that lists them', async () => {
    const server = await sandbox.run(['prompts', 'nope', '--trust']);
    expect(server.code).toBe(1);
    expect(server.stderr).toBe(
      'clat: no server named "nope" is mounted; "clat mcp --trust" shows every server (mcp.json, installed plugins, plugins.json, the GLM pack) [CLI_SERVER_NOT_FOUND]\n',
    );
    const prompt = await sandbox.run(['prompts', 'get', 'everything', 'nope', '--trust']);
    expect(prompt.code).toBe(2);
    expect(prompt.stderr).toContain(
      'server "everything" has no prompt named "nope"; run "clat prompts everything --trust"',
    );
  });
});

interface ResourcesJson {
  servers: {
    name: string;
    resources: { uri: string; name: string; mimeType?: string }[];
    resourceTemplates: { uriTemplate: string; name: string }[];
  }[];
}

describe('prompt counts in clat mcp', () => {
  it('counts the MCP prompts a server lists, apart from the system prompts it contributed', async () => {
    const listed = parseJsonOutput<PromptsJson>(
      await sandbox.run(['prompts', '--trust', '--json']),
    );
    const offered = (name: string) =>
      listed.servers.find((server) => server.name === name)?.prompts.length ?? 0;
    expect(offered('everything')).toBeGreaterThan(0);
    const result = await sandbox.run(['mcp', '--json', '--trust']);
    expect(result.code, result.stderr).toBe(0);
    const status = parseJsonOutput<{
      servers: { name: string; prompts: number; systemPrompts: number }[];
    }>(result);
    expect(
      status.servers.map(({ name, prompts, systemPrompts }) => ({ name, prompts, systemPrompts })),
    ).toEqual([
      { name: 'everything', prompts: offered('everything'), systemPrompts: 0 },
      { name: 'catalog', prompts: 2, systemPrompts: 0 },
    ]);
    const text = await sandbox.run(['mcp', '--trust']);
    expect(text.stdout).toContain(`, ${offered('everything')} prompts`);
    expect(text.stdout).not.toContain('system prompt');
  });
});

describe('clat resources', () => {
  it('lists resources of every page and the templates, sanitised, and exact in --json', async () => {
    const text = await sandbox.run(['resources', '--trust']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('everything: 7 resources, 2 templates\n');
    expect(text.stdout).toMatch(
      /@everything:demo:\/\/resource\/static\/document\/features\.md {2}text\/markdown/,
    );
    expect(text.stdout).toContain('template demo://resource/dynamic/text/{resourceId}');
    // The fixture's second page arrives after a cursor.
    expect(text.stdout).toContain('catalog: 3 resources, 1 template\n');
    expect(text.stdout).toContain('@catalog:memo://two');

    const json = parseJsonOutput<ResourcesJson>(
      await sandbox.run(['resources', '--trust', '--json']),
    );
    const everything = json.servers.find((server) => server.name === 'everything');
    expect(everything?.resources).toHaveLength(7);
    expect(everything?.resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      'demo://resource/dynamic/text/{resourceId}',
      'demo://resource/dynamic/blob/{resourceId}',
    ]);
    expect(
      json.servers.find((server) => server.name === 'catalog')?.resources.map((r) => r.uri),
    ).toEqual(['memo://one', 'memo://two', 'memo://big']);
  });

  it('reads text (and UTF-8 text blobs) as text and binary as a placeholder; --json is exact', async () => {
    const doc = await readFile(join(DOCS, 'features.md'), 'utf8');
    const uri = 'demo://resource/static/document/features.md';
    const text = await sandbox.run(['resources', 'read', 'everything', uri, '--trust']);
    expect(text.code).toBe(0);
    expect(text.stdout.trimEnd()).toBe(doc.trimEnd());
    const json = parseJsonOutput<{ contents: { kind: string; text?: string; blob?: string }[] }>(
      await sandbox.run(['resources', 'read', 'everything', uri, '--trust', '--json']),
    );
    expect(json.contents).toEqual([{ kind: 'text', text: doc, uri, mimeType: 'text/markdown' }]);

    const blobUri = 'demo://resource/dynamic/blob/3';
    const blob = await sandbox.run(['resources', 'read', 'everything', blobUri, '--trust']);
    expect(blob.stdout).toMatch(/^Resource 3: This is a base64 blob created at [^\n]+\n$/);
    const blobJson = parseJsonOutput<{ contents: { blob: string; bytes: number }[] }>(
      await sandbox.run(['resources', 'read', 'everything', blobUri, '--trust', '--json']),
    );
    const decoded = Buffer.from(blobJson.contents[0]?.blob ?? '', 'base64');
    expect(decoded.toString('utf8')).toMatch(/^Resource 3: This is a base64 blob created at /);
    expect(blobJson.contents[0]?.bytes).toBe(decoded.length);

    // A text blob is sanitised like text; bytes that are not UTF-8, or an image, stay binary.
    const read = (uri: string) => sandbox.run(['resources', 'read', 'catalog', uri, '--trust']);
    expect((await read('memo://text-blob')).stdout).toBe('blob text\\x1b[2J ok\n');
    expect((await read('memo://latin-blob')).stdout).toBe(
      '[binary content memo://latin-blob: text/plain, 4 bytes, not shown]\n',
    );
    expect((await read('memo://png-blob')).stdout).toBe(
      '[binary content memo://png-blob: image/png, 4 bytes, not shown]\n',
    );
    const exact = parseJsonOutput<{ contents: unknown[] }>(
      await sandbox.run(['resources', 'read', 'catalog', 'memo://text-blob', '--trust', '--json']),
    );
    expect(exact.contents).toEqual([
      {
        kind: 'blob',
        blob: Buffer.from(`blob text${ESC}[2J ok`).toString('base64'),
        bytes: 16,
        uri: 'memo://text-blob',
        mimeType: 'text/plain',
      },
    ]);
  });

  it('sanitises resource text, refuses a read over 1 MiB and reports a missing resource', async () => {
    const hostile = await sandbox.run(['resources', 'read', 'catalog', 'memo://one', '--trust']);
    expect(hostile.stdout).toBe('line one\\x1b]0;pwned\\x07 end\n');
    const exact = parseJsonOutput<{ contents: { text: string }[] }>(
      await sandbox.run(['resources', 'read', 'catalog', 'memo://one', '--trust', '--json']),
    );
    expect(exact.contents[0]?.text).toBe(`line one${ESC}]0;pwned\u0007 end`);

    const big = await sandbox.run(['resources', 'read', 'catalog', 'memo://big', '--trust']);
    expect(big.code).toBe(1);
    expect(big.stdout).toBe('');
    expect(big.stderr).toMatch(
      /^clat: resource "memo:\/\/big" of MCP server "catalog" returned \d+ bytes, over the result limit of 1048576 bytes \[MCP_RESULT_TOO_LARGE\]\n$/,
    );

    const missing = await sandbox.run(['resources', 'read', 'catalog', 'memo://none', '--trust']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no memo://none');
  });
});
