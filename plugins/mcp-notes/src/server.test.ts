/** Drives the built, bundled package as a real subprocess in both MCP eras. */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { access, constants, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildPackage } from '../scripts/build-package.mjs';

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'notes-test', version: '0.0.0' },
};

interface RpcReply {
  id: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

class LineClient {
  readonly child: ChildProcessWithoutNullStreams;
  #nextId = 1;
  #pending = new Map<number, (reply: RpcReply) => void>();
  stderr = '';

  constructor(entry: string, env: Record<string, string>) {
    this.child = spawn(process.execPath, [entry], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      const message = JSON.parse(line) as RpcReply;
      this.#pending.get(message.id)?.(message);
      this.#pending.delete(message.id);
    });
  }

  request(method: string, params: Record<string, unknown> = {}): Promise<RpcReply> {
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  notify(method: string): void {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
  }

  /** Closes stdin; a well-behaved stdio server exits on its own. */
  async close(): Promise<number | null> {
    if (this.child.exitCode !== null) return this.child.exitCode;
    const exited = new Promise<number | null>((resolve) => this.child.once('exit', resolve));
    this.child.stdin.end();
    return exited;
  }
}

let work: string;
let entry: string;
let packageDir: string;
const clients: LineClient[] = [];

function start(env: Record<string, string>): LineClient {
  const client = new LineClient(entry, env);
  clients.push(client);
  return client;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'mcp-notes-'));
  const built = await buildPackage(join(work, 'package'));
  entry = built.entry;
  packageDir = built.dir;
});
afterEach(() => {
  for (const client of clients.splice(0)) client.child.kill('SIGKILL');
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('built package', () => {
  it('is an executable entry whose digest is in the manifest', async () => {
    await access(entry, constants.X_OK);
    const manifest = JSON.parse(await readFile(join(packageDir, 'clat-plugin.json'), 'utf8'));
    const { createHash } = await import('node:crypto');
    const digest = createHash('sha256')
      .update(await readFile(entry))
      .digest('hex');
    expect(manifest.runtime).toMatchObject({
      kind: 'mcp-stdio',
      entry: 'server.mjs',
      sha256: digest,
    });
  });
});

describe('modern era (2026-07-28)', () => {
  it('answers server/discover and serves the tools with correct annotations', async () => {
    const client = start({ MCP_NOTES_DIR: join(work, 'modern') });
    const discover = await client.request('server/discover', { _meta: MODERN_META });
    expect(discover.result?.supportedVersions).toContain('2026-07-28');
    expect(discover.result?.resultType).toBe('complete');
    const list = await client.request('tools/list', { _meta: MODERN_META });
    const tools = list.result?.tools as { name: string; annotations: Record<string, boolean> }[];
    const byName = new Map(tools.map((tool) => [tool.name, tool.annotations]));
    expect([...byName.keys()].sort()).toEqual([
      'add_note',
      'delete_note',
      'get_note',
      'list_notes',
      'search_notes',
    ]);
    expect(byName.get('list_notes')).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    expect(byName.get('search_notes')).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    expect(byName.get('add_note')).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(byName.get('delete_note')).toMatchObject({ readOnlyHint: false, destructiveHint: true });

    const added = await client.request('tools/call', {
      name: 'add_note',
      arguments: { title: 'Release', body: 'Tag v1.2 on Friday', tags: ['work'] },
      _meta: MODERN_META,
    });
    const { id } = added.result!.structuredContent as { id: string };
    const found = await client.request('tools/call', {
      name: 'search_notes',
      arguments: { query: 'friday' },
      _meta: MODERN_META,
    });
    expect(found.result?.structuredContent).toMatchObject({ hits: [{ id, title: 'Release' }] });
    const deleted = await client.request('tools/call', {
      name: 'delete_note',
      arguments: { id },
      _meta: MODERN_META,
    });
    expect(deleted.result?.structuredContent).toEqual({ deleted: true });
    expect(await client.close()).toBe(0);
  });

  it('rejects invalid tool input as a tool error, not a crash', async () => {
    const client = start({ MCP_NOTES_DIR: join(work, 'invalid') });
    await client.request('server/discover', { _meta: MODERN_META });
    const reply = await client.request('tools/call', {
      name: 'add_note',
      arguments: { title: '' },
      _meta: MODERN_META,
    });
    expect(reply.error !== undefined || reply.result?.isError === true).toBe(true);
    expect(client.child.exitCode).toBeNull();
  });
});

describe('legacy era (initialize)', () => {
  it('initializes and sees notes written by an earlier modern session (file persistence)', async () => {
    const dir = join(work, 'shared');
    const modern = start({ MCP_NOTES_DIR: dir });
    await modern.request('server/discover', { _meta: MODERN_META });
    await modern.request('tools/call', {
      name: 'add_note',
      arguments: { title: 'Persisted', body: 'survives a restart' },
      _meta: MODERN_META,
    });
    await modern.close();

    const legacy = start({ MCP_NOTES_DIR: dir });
    const init = await legacy.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'notes-test', version: '0.0.0' },
    });
    expect(init.result).toMatchObject({
      protocolVersion: '2025-11-25',
      serverInfo: { name: 'mcp-notes' },
    });
    legacy.notify('notifications/initialized');
    const listed = await legacy.request('tools/call', { name: 'list_notes', arguments: {} });
    expect(listed.result?.structuredContent).toMatchObject({ notes: [{ title: 'Persisted' }] });
    expect(await legacy.close()).toBe(0);
  });

  it('keeps notes out of the artifact dir when installed (CLAT_PLUGIN_ID set)', async () => {
    const home = join(work, 'clat-home');
    const client = start({ CLAT_PLUGIN_ID: 'mcp-notes', CLAT_HOME: home });
    await client.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'notes-test', version: '0.0.0' },
    });
    client.notify('notifications/initialized');
    await client.request('tools/call', { name: 'add_note', arguments: { title: 'a', body: 'b' } });
    await client.close();
    const stored = JSON.parse(
      await readFile(join(home, 'plugin-data', 'mcp-notes', 'notes.json'), 'utf8'),
    );
    expect(stored.notes).toHaveLength(1);
  });
});
