import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pidAlive } from '@clat/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpHarness, npmServer } from './support.js';

// The published reference servers (pinned devDependencies of test/), launched over stdio through
// StdioTransport, negotiated by @clat/adapter-mcp and called through the kernel pipeline.

let harness: McpHarness;
let fsRoot: string;
let memoryFile: string;

beforeAll(async () => {
  harness = new McpHarness();
  const home = await harness.home();
  fsRoot = join(home, 'fs-root');
  memoryFile = join(home, 'memory.jsonl');
  await mkdir(fsRoot, { recursive: true });
  await writeFile(join(fsRoot, 'hello.txt'), 'hello from the e2e test\n');
  // All three mount concurrently, like the background startup worker does.
  await Promise.all([
    harness.mount('everything', {
      command: process.execPath,
      args: [npmServer('server-everything'), 'stdio'],
    }),
    // "roots": false keeps the directory it was started with (roots would replace it).
    harness.mount(
      'filesystem',
      { command: process.execPath, args: [npmServer('server-filesystem'), fsRoot] },
      { roots: false },
    ),
    harness.mount('memory', {
      command: process.execPath,
      args: [npmServer('server-memory')],
      env: { MEMORY_FILE_PATH: memoryFile },
    }),
  ]);
});

afterAll(async () => {
  const pids = harness.spawnedPids();
  await harness.close();
  expect(harness.survivors()).toEqual([]);
  for (const pid of pids) expect(pidAlive(pid)).toBe(false);
});

const effectOf = (name: string) => harness.registry.get(name)?.definition.effect;

describe('real npm MCP servers over stdio', () => {
  it('connects all three as legacy servers, each after a disposable probe process', () => {
    for (const mounted of harness.mounted) {
      const status = mounted.status();
      expect(status.state, `${mounted.name}: ${status.failure}`).toBe('connected');
      expect(status.era).toBe('legacy');
      expect(status.tools).toBe(harness.toolNames(mounted.name).length);
      expect(status.tools).toBeGreaterThan(0);
    }
    for (const factory of harness.factories) {
      expect(factory.spawnedPids).toHaveLength(2);
      expect(pidAlive(factory.spawnedPids[0] as number)).toBe(false);
      expect(pidAlive(factory.spawnedPids[1] as number)).toBe(true);
    }
  });

  it('names every tool mcp_{server}_{tool} with normalized segments', () => {
    for (const server of ['everything', 'filesystem', 'memory']) {
      for (const name of harness.toolNames(server)) {
        expect(name).toMatch(new RegExp(`^mcp_${server}_[A-Za-z0-9_]+$`));
        expect(name.length).toBeLessThanOrEqual(64);
      }
    }
    expect(harness.toolNames('everything')).toEqual(
      expect.arrayContaining(['mcp_everything_echo', 'mcp_everything_get_sum']),
    );
    expect(harness.registry.get('mcp_everything_get_sum')?.definition.sourceName).toBe('get-sum');
    expect(harness.toolNames('filesystem')).toEqual(
      expect.arrayContaining(['mcp_filesystem_read_text_file', 'mcp_filesystem_write_file']),
    );
    expect(harness.toolNames('memory')).toEqual(
      expect.arrayContaining(['mcp_memory_create_entities', 'mcp_memory_search_nodes']),
    );
  });

  it('maps annotations to effects and never to native read', () => {
    // read-only + closed world
    expect(effectOf('mcp_everything_echo')).toBe('external-read');
    expect(effectOf('mcp_filesystem_read_text_file')).toBe('external-read');
    expect(effectOf('mcp_memory_read_graph')).toBe('external-read');
    // not read-only, not destructive
    expect(effectOf('mcp_memory_create_entities')).toBe('write');
    expect(effectOf('mcp_filesystem_create_directory')).toBe('write');
    expect(effectOf('mcp_everything_toggle_simulated_logging')).toBe('write');
    // destructive
    expect(effectOf('mcp_filesystem_write_file')).toBe('destructive');
    expect(effectOf('mcp_memory_delete_entities')).toBe('destructive');
    expect(harness.registry.list().filter((t) => t.effect === 'read')).toEqual([]);
  });

  it('calls server-everything tools', async () => {
    expect((await harness.call('mcp_everything_echo', { message: 'hi there' })).content).toContain(
      'hi there',
    );
    expect((await harness.call('mcp_everything_get_sum', { a: 19, b: 23 })).content).toContain(
      '42',
    );
    const structured = await harness.call('mcp_everything_get_structured_content', {
      location: 'New York',
    });
    expect(structured.structured).toBeTypeOf('object');
  });

  it('reads and writes through server-filesystem inside its allowed root only', async () => {
    const read = await harness.call('mcp_filesystem_read_text_file', {
      path: join(fsRoot, 'hello.txt'),
    });
    expect(read.content).toContain('hello from the e2e test');
    const target = join(fsRoot, 'written.txt');
    const wrote = await harness.call('mcp_filesystem_write_file', {
      path: target,
      content: 'written by clat',
    });
    expect(wrote.isError ?? false).toBe(false);
    expect(await readFile(target, 'utf8')).toBe('written by clat');
    const outside = await harness.call('mcp_filesystem_read_text_file', { path: '/etc/hostname' });
    expect(outside.isError).toBe(true);
  });

  it('persists entities through server-memory', async () => {
    const created = await harness.call('mcp_memory_create_entities', {
      entities: [{ name: 'clat_e2e', entityType: 'test', observations: ['spawned over stdio'] }],
    });
    expect(created.isError ?? false).toBe(false);
    const found = await harness.call('mcp_memory_search_nodes', { query: 'clat_e2e' });
    expect(found.content).toContain('spawned over stdio');
    expect(await readFile(memoryFile, 'utf8')).toContain('clat_e2e');
  });

  it('keeps server stderr out of stdout and exposes it as a redacted tail', () => {
    const tail = harness.mounted.find((m) => m.name === 'memory')?.status().stderrTail ?? [];
    expect(tail.join('\n')).toContain('Knowledge Graph MCP Server running on stdio');
  });
});
