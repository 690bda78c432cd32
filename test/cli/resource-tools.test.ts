/**
 * The model's resource tools through the real `clat` binary: `list_resources` and
 * `read_resource` in `clat tools`, called with `clat call` (text, binary line, the sanitiser on
 * what the terminal shows, the errors that name a server or URI, read-only asking) and by a
 * scripted model in `clat exec`, which gets the resource's exact text.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type FakeChatServer,
  fakeModelProvider,
  type ScriptedReply,
  startFakeChatServer,
} from './chat-server.js';
import { CLI_FIXTURES, EVERYTHING_SERVER, parseJsonOutput, useCliSandbox } from './support.js';

const ESC = '\u001b';
const DOCS = join(dirname(EVERYTHING_SERVER), 'docs');
const FEATURES = 'demo://resource/static/document/features.md';
const API_KEY = 'sk-e2e-provider-key-0123456789';

let chat: FakeChatServer | undefined;

const sandbox = useCliSandbox(
  async () => {
    await sandbox.writeMcp({
      everything: sandbox.node(EVERYTHING_SERVER, 'stdio'),
      catalog: sandbox.node(join(CLI_FIXTURES, 'catalog-server.mjs')),
    });
    await sandbox.run(['trust']);
  },
  {
    teardown: async () => {
      await chat?.close();
      chat = undefined;
    },
  },
);

const call = (tool: string, args: unknown, extra: string[] = []) =>
  sandbox.run(['call', tool, JSON.stringify(args), ...extra]);

interface ToolsJson {
  tools: { name: string; effect: string; source: { kind: string; id: string } }[];
}

describe('the resource tools', () => {
  it('are listed with the native tools as external-read', async () => {
    const json = parseJsonOutput<ToolsJson>(await sandbox.run(['tools', '--json']));
    const names = json.tools.map((tool) => tool.name);
    expect(names.slice(0, 9)).toEqual([
      'list_files',
      'read_file',
      'search',
      'write_file',
      'edit_file',
      'run_command',
      'ask_user',
      'list_resources',
      'read_resource',
    ]);
    expect(json.tools.find((tool) => tool.name === 'read_resource')).toMatchObject({
      effect: 'external-read',
      source: { kind: 'native', id: '' },
    });
    const text = await sandbox.run(['tools']);
    expect(text.stdout).toMatch(/^ {2}read_resource +external-read +native +Read one resource/m);
  });

  it('are not offered when nothing is configured', async () => {
    await sandbox.writeMcp({});
    const json = parseJsonOutput<ToolsJson>(await sandbox.run(['tools', '--json']));
    expect(json.tools.map((tool) => tool.name)).not.toContain('read_resource');
    expect(json.tools).toHaveLength(7);
  });

  it('list every server with resources, naming the server, or one server', async () => {
    const all = await call('list_resources', {});
    expect(all.stderr).toBe('');
    expect(all.code).toBe(0);
    const listing = JSON.parse(all.stdout) as {
      servers: { server: string; resources: { uri: string }[]; templates: unknown[] }[];
    };
    expect(listing.servers.map((server) => server.server)).toEqual(['everything', 'catalog']);
    expect(listing.servers[0]?.resources.map((r) => r.uri)).toContain(FEATURES);
    expect(listing.servers[1]?.resources.map((r) => r.uri)).toEqual([
      'memo://one',
      'memo://two',
      'memo://big',
    ]);
    expect(listing.servers[1]?.templates).toEqual([{ uriTemplate: 'memo://{id}', name: 'memo' }]);

    const one = JSON.parse((await call('list_resources', { server: 'catalog' })).stdout) as {
      servers: { server: string }[];
    };
    expect(one.servers.map((server) => server.server)).toEqual(['catalog']);
  });

  it('read text as text (a text/* UTF-8 blob too), and the terminal sees it sanitised', async () => {
    const doc = await readFile(join(DOCS, 'features.md'), 'utf8');
    const text = await call('read_resource', { server: 'everything', uri: FEATURES });
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    expect(text.stdout).toBe(`${doc}\n`);

    // server-everything's blobs are base64 text/plain: valid UTF-8, so the model gets the text.
    const blob = await call('read_resource', {
      server: 'everything',
      uri: 'demo://resource/dynamic/blob/3',
    });
    expect(blob.stdout).toMatch(/^Resource 3: This is a base64 blob created at /);

    const hostile = await sandbox.run([
      'call',
      'read_resource',
      'server=catalog',
      'uri=memo://one',
    ]);
    expect(hostile.code).toBe(0);
    expect(hostile.stdout).toBe('line one\\x1b]0;pwned\\x07 end\n');
    expect(hostile.stdout).not.toContain(ESC);
  });

  it('name an unknown server, an unknown URI and a read over the result limit', async () => {
    const server = await call('read_resource', { server: 'nope', uri: 'x://y' });
    expect(server.code).toBe(1);
    expect(server.stdout).toBe(
      'no server named "nope" is mounted; list_resources without "server" names the servers that offer resources\n',
    );
    const uri = await call('read_resource', { server: 'catalog', uri: 'memo://none' });
    expect(uri.code).toBe(1);
    expect(uri.stdout).toMatch(
      /^server "catalog" could not read resource "memo:\/\/none": .*no memo:\/\/none/,
    );
    const big = await call('read_resource', { server: 'catalog', uri: 'memo://big' });
    expect(big.code).toBe(1);
    expect(big.stdout).toMatch(
      /^resource "memo:\/\/big" of MCP server "catalog" returned \d+ bytes, over the result limit of 1048576 bytes\n$/,
    );
    const json = parseJsonOutput<{ isError: boolean; structured: { error: { code: string } } }>(
      await call('read_resource', { server: 'nope', uri: 'x://y' }, ['--json']),
    );
    expect(json).toMatchObject({
      isError: true,
      structured: { error: { code: 'TOOL_INVALID_ARGUMENTS' } },
    });
  });

  it('ask in read-only mode, as other external reads do', async () => {
    const result = await call('read_resource', { server: 'catalog', uri: 'memo://two' }, [
      '--mode',
      'read-only',
    ]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('read_resource was not approved: external-read needs approval');
  });

  it('let the model read a resource in a turn and get its exact text', async () => {
    const replies: ScriptedReply[] = [
      {
        toolCalls: [{ name: 'read_resource', arguments: { server: 'catalog', uri: 'memo://one' } }],
      },
      { text: 'Read it.' },
    ];
    chat = await startFakeChatServer(replies);
    await sandbox.writeConfig({ provider: fakeModelProvider(chat.url, 'E2E_PROVIDER_KEY') });
    const result = await sandbox.run(['exec', 'Read memo one'], {
      env: { E2E_PROVIDER_KEY: API_KEY },
    });
    expect(result.stdout).toBe('Read it.\n');
    expect(result.code).toBe(0);
    const offered = chat.requests[0]?.body.tools?.map((tool) => tool.function.name) ?? [];
    expect(offered).toEqual(expect.arrayContaining(['list_resources', 'read_resource']));
    const answer = chat.requests[1]?.body.messages.filter((m) => m.role === 'tool').at(-1);
    // The model's input is the server's text as it is; only the terminal's copy is sanitised.
    expect(answer?.content).toBe(`line one${ESC}]0;pwned\u0007 end`);
    expect(result.stderr).toContain('→ read_resource');
  });
});
