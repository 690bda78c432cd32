/**
 * The gateway mounts what `clat` mounts, through the kernel host: native tools, an mcp.json server
 * (server-everything), a WASM component from plugins.json and a DSH plugin packaged with
 * `clat-dsh package` and installed with the real `clat plugin install`. The official SDK v1 client
 * over stdio and the v2 client over Streamable HTTP list every kind and call each. A server that
 * comes up after the first listing is announced with `tools/list_changed`; one that comes up
 * after the first call froze the surface is not (and `clat://status` says why).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareComponent, wasmCacheDir } from '@clat/adapter-wasm';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clatDsh, REPO } from '../dsh/harness.js';
import { execClat } from '../support/clat-bin.js';
import {
  type GatewayWorld,
  gatewayStdio,
  gatewayWorld,
  type HttpGatewayProcess,
  startHttpGateway,
  WASM_COMPONENT,
  WASM_MANIFEST,
} from './support.js';

const LEAKY_CRASH = join(REPO, 'test/cli/fixtures/leaky-crash.mjs');
const SLOW_LIST = join(REPO, 'test/fixtures/mcp-servers/slow-list.mjs');

const NATIVE = 'read_file';
const MCP = 'mcp_everything_get_sum';
const WASM = 'wasm_wasm_summarize_word_count';
const DSH_LIST = 'mcp_dsh_todo_todo_list';
const DSH_ADD = 'mcp_dsh_todo_todo_add';

let work: string;
let world: GatewayWorld | undefined;
let http: HttpGatewayProcess | undefined;
const clients: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'clat-gateway-sources-'));
  const built = await clatDsh([
    'package',
    join(REPO, 'plugins', 'dsh-todo'),
    '--out',
    join(work, 'dsh-todo'),
  ]);
  expect(built.code, built.stderr).toBe(0);
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => {});
  await http?.stop();
  http = undefined;
  await world?.cleanup();
  world = undefined;
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

function textOf(result: object): string {
  const blocks = ((result as { content?: unknown }).content ?? []) as Array<{ text?: string }>;
  return blocks.map((block) => block.text ?? '').join('\n');
}

/** A world with every source kind: mcp.json, plugins.json and an installed DSH package. */
async function everySource(): Promise<GatewayWorld> {
  const w = await gatewayWorld();
  const installed = await execClat(
    ['plugin', 'install', join(work, 'dsh-todo'), '--accept-capabilities'],
    { cwd: w.project, home: w.home },
  );
  expect(installed.code, installed.stderr).toBe(0);
  // Warm the jco transpile cache: the first listing waits for the surface only so long.
  await prepareComponent({ componentPath: WASM_COMPONENT, cacheDir: wasmCacheDir(w.home) });
  await writeFile(
    join(w.home, 'plugins.json'),
    JSON.stringify({ 'wasm-summarize': { manifest: WASM_MANIFEST } }),
  );
  return w;
}

/** Calls one tool of each kind and checks what each returned. */
async function callEachKind(
  client: {
    callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<object>;
  },
  w: GatewayWorld,
  label: string,
): Promise<void> {
  const read = await client.callTool({ name: NATIVE, arguments: { path: 'notes.txt' } });
  expect(textOf(read)).toContain('gateway notes');
  const sum = await client.callTool({ name: MCP, arguments: { a: 40, b: 2 } });
  expect(textOf(sum)).toContain('42');
  const counted = await client.callTool({ name: WASM, arguments: { text: 'one two three' } });
  expect(JSON.parse(textOf(counted))).toEqual({ words: 3 });
  const added = await client.callTool({ name: DSH_ADD, arguments: { text: label } });
  expect(added, textOf(added)).not.toMatchObject({ isError: true });
  const listed = await client.callTool({ name: DSH_LIST, arguments: {} });
  expect(textOf(listed)).toContain(label);
  // The DSH plugin wrote through CLAT's host write_file, inside the project.
  expect(await readFile(join(w.project, '.clat-todo.json'), 'utf8')).toContain(label);
}

describe('clat-gateway mounts every source kind', () => {
  it('serves native, MCP, WASM and DSH tools to SDK v1 over stdio and v2 over HTTP', async () => {
    world = await everySource();
    const w = world;

    const one = new ClientV1({ name: 'gateway-sources-v1', version: '0.0.0' });
    await one.connect(new StdioV1(gatewayStdio(w, ['--mode', 'project-write'])));
    clients.push(one);
    const names = (await one.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining([NATIVE, MCP, WASM, DSH_LIST, DSH_ADD]));
    await callEachKind(one, w, 'from the v1 client');

    const status = await one.readResource({ uri: 'clat://status' });
    const body = (status.contents[0] as { text: string }).text;
    const servers = (JSON.parse(body) as { servers: Array<Record<string, unknown>> }).servers;
    expect(servers).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'everything', origin: 'user', state: 'connected' }),
        expect.objectContaining({
          name: 'wasm-summarize',
          origin: 'plugins.json',
          transport: 'wasm',
          state: 'connected',
        }),
        expect.objectContaining({ name: 'dsh.todo', origin: 'package', state: 'connected' }),
      ]),
    );
    expect(body).not.toContain('sk-gateway-secret-1234');
    await one.close();

    http = await startHttpGateway(w, ['--mode', 'project-write']);
    const two = new ClientV2(
      { name: 'gateway-sources-v2', version: '0.0.0' },
      { capabilities: {}, versionNegotiation: { mode: 'auto' } },
    );
    await two.connect(
      new HttpV2(new URL(http.url), {
        requestInit: { headers: { Authorization: `Bearer ${http.token}` } },
      }),
    );
    clients.push(two);
    expect(two.getProtocolEra()).toBe('modern');
    const listed = (await two.listTools()).tools.map((tool) => tool.name);
    expect(listed).toEqual(expect.arrayContaining([NATIVE, MCP, WASM, DSH_LIST, DSH_ADD]));
    await callEachKind(two, w, 'from the v2 client');
  });

  it('redacts configured secrets and key-shaped values from stderr tails in clat://status', async () => {
    world = await gatewayWorld();
    const w = world;
    const secret = 'plain-configured-value-7f3a';
    await writeFile(
      join(w.home, 'mcp.json'),
      JSON.stringify({
        leaky: {
          command: process.execPath,
          args: [SLOW_LIST],
          env: {
            SLOW_LIST_MS: '0',
            LEAK: secret,
            STDERR_LINE: `starting with ${secret} and Authorization: Bearer sk-live-abcdef0123456789abcdef`,
          },
        },
        // Prints its configured secret and exits: the failure is said on the gateway's stderr too
        // (what a client logs), redacted.
        broken: { command: process.execPath, args: [LEAKY_CRASH], env: { LEAKY_TOKEN: secret } },
      }),
    );
    const client = new ClientV1({ name: 'gateway-redaction', version: '0.0.0' });
    const transport = new StdioV1(gatewayStdio(w));
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    await client.connect(transport);
    clients.push(client);
    await expect
      .poll(() => stderr, { timeout: 20_000 })
      .toMatch(/clat-gateway: server broken failed: .*leaky-crash/);
    expect(stderr).not.toContain(secret);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain(
      'mcp_leaky_late_echo',
    );
    const status = await client.readResource({ uri: 'clat://status' });
    const body = (status.contents[0] as { text: string }).text;
    const leaky = (
      JSON.parse(body) as { servers: Array<{ name: string; stderrTail: string[] }> }
    ).servers.find((server) => server.name === 'leaky');
    expect(leaky?.stderrTail.join('\n')).toContain('[REDACTED]');
    expect(body).not.toContain(secret);
    expect(body).not.toContain('sk-live-abcdef0123456789abcdef');
  });

  it('announces a server that connects after the first listing, never one the freeze rejected', async () => {
    world = await gatewayWorld();
    const w = world;
    const slow = (tool: string, ms: number) => ({
      command: process.execPath,
      args: [SLOW_LIST],
      env: { SLOW_LIST_MS: String(ms), SLOW_TOOL: tool },
    });
    await writeFile(
      join(w.home, 'mcp.json'),
      JSON.stringify({
        late: slow('late_echo', 2500),
        later: slow('later_echo', 8000),
      }),
    );
    const client = new ClientV1({ name: 'gateway-list-changed', version: '0.0.0' });
    const changes: number[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      changes.push(Date.now());
    });
    await client.connect(
      // The first listing and call wait at most 1 s for slow plugins.
      new StdioV1(gatewayStdio(w, ['--mode', 'full-access', '--wait', '1'])),
    );
    clients.push(client);
    const first = (await client.listTools()).tools.map((tool) => tool.name);
    expect(first).toContain('read_file');
    expect(first).not.toContain('mcp_late_late_echo');

    await expect.poll(() => changes.length, { timeout: 20_000, interval: 100 }).toBe(1);
    const second = (await client.listTools()).tools.map((tool) => tool.name);
    expect(second).toContain('mcp_late_late_echo');
    const echoed = await client.callTool({ name: 'mcp_late_late_echo', arguments: { text: 'hi' } });
    expect(textOf(echoed)).toBe('hi');

    // The call froze the surface: the later server is rejected, and nothing is announced.
    await expect
      .poll(
        async () => {
          const status = await client.readResource({ uri: 'clat://status' });
          const body = JSON.parse((status.contents[0] as { text: string }).text) as {
            servers: Array<{ name: string; state: string; failure?: string }>;
          };
          return body.servers.find((server) => server.name === 'later');
        },
        { timeout: 30_000, interval: 250 },
      )
      .toMatchObject({
        state: 'failed',
        // The gateway's own name: restarting clat would not help.
        failure: expect.stringContaining(
          'froze for the first run, so its registrations were revoked; restart clat-gateway after fixing or warming it',
        ),
      });
    expect(changes).toHaveLength(1);
    const third = (await client.listTools()).tools.map((tool) => tool.name);
    expect(third).not.toContain('mcp_later_later_echo');
  });

  it('announces a late server to a 2026-07-28 client over HTTP through subscriptions/listen', async () => {
    world = await gatewayWorld();
    const w = world;
    await writeFile(
      join(w.home, 'mcp.json'),
      JSON.stringify({
        late: {
          command: process.execPath,
          args: [SLOW_LIST],
          env: { SLOW_LIST_MS: '2500', SLOW_TOOL: 'late_echo' },
        },
      }),
    );
    http = await startHttpGateway(w, ['--mode', 'full-access', '--wait', '1']);
    const seen: string[][] = [];
    const client = new ClientV2(
      { name: 'gateway-list-changed-v2', version: '0.0.0' },
      {
        capabilities: {},
        versionNegotiation: { mode: 'auto' },
        listChanged: {
          tools: {
            debounceMs: 0,
            onChanged: (_error, tools) => {
              seen.push((tools ?? []).map((tool) => tool.name));
            },
          },
        },
      },
    );
    await client.connect(
      new HttpV2(new URL(http.url), {
        requestInit: { headers: { Authorization: `Bearer ${http.token}` } },
      }),
    );
    clients.push(client);
    expect(client.getProtocolEra()).toBe('modern');
    const first = (await client.listTools()).tools.map((tool) => tool.name);
    expect(first).not.toContain('mcp_late_late_echo');
    await expect
      .poll(() => seen.some((names) => names.includes('mcp_late_late_echo')), {
        timeout: 20_000,
        interval: 100,
      })
      .toBe(true);
    const echoed = await client.callTool({ name: 'mcp_late_late_echo', arguments: { text: 'v2' } });
    expect(textOf(echoed)).toBe('v2');
  });
});
