import { describe, expect, it } from 'vitest';
import { ClatError, KernelErrorCode } from '../errors.js';
import { RunEventStream } from '../events.js';
import { LIMITS } from '../limits.js';
import { type RunContext, ToolPipeline } from '../pipeline.js';
import { createGlobalScope } from '../scope.js';
import { ScriptedApprover } from '../testing/fakes.js';
import { ToolRegistry } from '../tool-registry.js';
import type { PluginCatalog, ResourceRead } from './catalog.js';
import type { MountEntry } from './connector.js';
import { createHost } from './create-host.js';
import type { MountStatus } from './plugin-mount.js';
import {
  type CatalogDirectory,
  createResourceTools,
  RESOURCE_TOOL_NAMES,
  type ResourceListing,
} from './resource-tools.js';

const ENTRY: MountEntry = { kind: 'fake', name: 'docs', origin: 'test', config: {} };

function b64(text: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text)));
}

function catalog(overrides: Partial<PluginCatalog> = {}): PluginCatalog {
  const reject = async (): Promise<never> => {
    throw new Error('not offered');
  };
  return {
    prompts: false,
    resources: true,
    listPrompts: reject,
    renderPrompt: reject,
    listResources: async () => [
      { uri: 'doc://a', name: 'a', mimeType: 'text/plain', description: 'first' },
    ],
    listResourceTemplates: async () => [{ uriTemplate: 'doc://{id}', name: 'doc' }],
    readResource: async (uri) => ({
      contents: [{ kind: 'text', text: `text of ${uri}`, uri, mimeType: 'text/plain' }],
      bytes: 10,
    }),
    ...overrides,
  };
}

type Status = Pick<MountStatus, 'name' | 'state' | 'failure' | 'login'>;

function directory(
  catalogs: Record<string, PluginCatalog | undefined>,
  extra: Status[] = [],
): CatalogDirectory {
  const statuses: Status[] = [
    ...Object.keys(catalogs).map(
      (name): Status => ({ name, state: 'connected', failure: undefined }),
    ),
    ...extra,
  ];
  return {
    catalog: (name) => catalogs[name],
    catalogNames: () => Object.keys(catalogs).filter((name) => catalogs[name] !== undefined),
    summary: () => ({ servers: statuses }),
  };
}

function setup(mount: CatalogDirectory) {
  const registry = new ToolRegistry();
  const events = new RunEventStream();
  const scope = createGlobalScope();
  for (const tool of createResourceTools({ mount })) registry.register(tool, scope);
  const pipeline = new ToolPipeline({ registry, events });
  const run = (extra: Partial<RunContext> = {}): RunContext => ({
    runId: 'r1',
    mode: 'project-write',
    signal: new AbortController().signal,
    ...extra,
  });
  return { registry, pipeline, run };
}

describe('createResourceTools', () => {
  it('offers list_resources and read_resource as external-read tools', () => {
    const tools = createResourceTools({ mount: directory({}) });
    expect(tools.map((t) => t.definition.name)).toEqual([...RESOURCE_TOOL_NAMES]);
    expect(tools.map((t) => t.definition.effect)).toEqual(['external-read', 'external-read']);
  });

  it('lists every server that offers resources, naming the server of each', async () => {
    const { pipeline, run } = setup(
      directory({
        docs: catalog(),
        prompts: { ...catalog(), resources: false },
        broken: catalog({
          listResources: async () => {
            throw new ClatError('MCP_TIMEOUT', 'the server took too long');
          },
        }),
      }),
    );
    const result = await pipeline.call('list_resources', {}, run());
    expect(result.isError).toBeUndefined();
    const listing = JSON.parse(result.content) as ResourceListing;
    expect(listing).toEqual({
      servers: [
        {
          server: 'docs',
          resources: [{ uri: 'doc://a', name: 'a', mimeType: 'text/plain', description: 'first' }],
          templates: [{ uriTemplate: 'doc://{id}', name: 'doc' }],
        },
        {
          server: 'broken',
          resources: [],
          templates: [],
          error: {
            code: 'MCP_TIMEOUT',
            message: 'listing the resources of server "broken" failed: the server took too long',
          },
        },
      ],
    });
    expect(result.structured).toEqual(listing);
  });

  it('says so when no server offers resources', async () => {
    const { pipeline, run } = setup(directory({}));
    const result = await pipeline.call('list_resources', {}, run());
    expect(JSON.parse(result.content)).toEqual({
      servers: [],
      note: 'no connected server offers resources',
    });
  });

  it('stops a listing at the tool result limit and marks it truncated', async () => {
    const many = Array.from({ length: 5000 }, (_, i) => ({
      uri: `doc://${i}`,
      name: `n${i}`,
      description: 'd'.repeat(400),
    }));
    const { pipeline, run } = setup(
      directory({ docs: catalog({ listResources: async () => many }) }),
    );
    const result = await pipeline.call('list_resources', { server: 'docs' }, run());
    const listing = JSON.parse(result.content) as ResourceListing;
    expect(listing.servers[0]?.truncated).toBe(true);
    expect(listing.servers[0]?.resources.length).toBeGreaterThan(100);
    expect(listing.servers[0]?.resources.length).toBeLessThan(many.length);
    expect(new TextEncoder().encode(result.content).length).toBeLessThanOrEqual(
      LIMITS.toolResultBytes,
    );
  });

  it('names an unknown server, one that offers no resources and one not connected', async () => {
    const { pipeline, run } = setup(
      directory({ plain: { ...catalog(), resources: false } }, [
        { name: 'down', state: 'failed', failure: 'spawn ENOENT\nmore' },
        { name: 'oauth', state: 'needs-login', failure: undefined, login: 'clat mcp login oauth' },
      ]),
    );
    const cases: [string, Record<string, string>, string, string][] = [
      [
        'read_resource',
        { server: 'nope', uri: 'x://y' },
        KernelErrorCode.TOOL_INVALID_ARGUMENTS,
        'no server named "nope" is mounted; list_resources without "server" names the servers that offer resources',
      ],
      [
        'list_resources',
        { server: 'plain' },
        KernelErrorCode.TOOL_INVALID_ARGUMENTS,
        'server "plain" offers no resources; list_resources without "server" names the servers that do',
      ],
      [
        'read_resource',
        { server: 'down', uri: 'x://y' },
        KernelErrorCode.MOUNT_FAILED,
        'server "down" is not connected, so its resources cannot be reached; it failed: spawn ENOENT',
      ],
      [
        'list_resources',
        { server: 'oauth' },
        KernelErrorCode.MOUNT_FAILED,
        'server "oauth" is not connected, so its resources cannot be reached; it needs a login (the user runs `clat mcp login oauth`)',
      ],
    ];
    for (const [tool, args, code, message] of cases) {
      const result = await pipeline.call(tool, args, run());
      expect(result).toEqual({
        content: message,
        isError: true,
        structured: { error: { code, message } },
      });
    }
  });

  it('refuses missing, empty and unknown arguments as tool-level failures', async () => {
    const { pipeline, run } = setup(directory({ docs: catalog() }));
    const missing = await pipeline.call('read_resource', { server: 'docs' }, run());
    expect(missing.isError).toBe(true);
    expect(missing.content).toBe('read_resource: "uri" is required');
    const empty = await pipeline.call('list_resources', { server: '' }, run());
    expect(empty.content).toBe('list_resources: "server" must be a non-empty string, got ""');
    const extra = await pipeline.call('read_resource', { server: 'docs', uri: 'a', x: 1 }, run());
    expect(extra.content).toBe('read_resource: unknown argument "x" (it takes "server", "uri")');
  });

  it('reads text as text and names the URI when the plugin does not know it', async () => {
    const { pipeline, run } = setup(
      directory({
        docs: catalog({
          readResource: async (uri) => {
            if (uri === 'doc://missing') throw new ClatError('MCP_SERVER_ERROR', 'no such thing');
            return { contents: [{ kind: 'text', text: `text of ${uri}`, uri }], bytes: 1 };
          },
        }),
      }),
    );
    const ok = await pipeline.call('read_resource', { server: 'docs', uri: 'doc://a' }, run());
    expect(ok).toEqual({ content: 'text of doc://a' });
    const missing = await pipeline.call(
      'read_resource',
      { server: 'docs', uri: 'doc://missing' },
      run(),
    );
    expect(missing).toMatchObject({
      isError: true,
      content: 'server "docs" could not read resource "doc://missing": no such thing',
      structured: { error: { code: 'MCP_SERVER_ERROR' } },
    });
  });

  it('shows text/* UTF-8 blobs as text and other bytes as one line', async () => {
    const reads: Record<string, ResourceRead> = {
      'doc://blob-text': {
        contents: [{ kind: 'blob', blob: b64('héllo'), bytes: 6, mimeType: 'text/plain' }],
        bytes: 1,
      },
      'doc://mixed': {
        contents: [
          { kind: 'text', text: 'part one', uri: 'doc://mixed#1', mimeType: 'text/markdown' },
          {
            kind: 'blob',
            blob: b64('\u00ff'),
            bytes: 2,
            uri: 'doc://mixed#2',
            mimeType: 'image/png',
          },
          // text/* that is not UTF-8 stays bytes.
          { kind: 'blob', blob: btoa('\u00ff\u00fe'), bytes: 2, mimeType: 'text/plain' },
        ],
        bytes: 1,
      },
      'doc://empty': { contents: [], bytes: 1 },
    };
    const { pipeline, run } = setup(
      directory({ docs: catalog({ readResource: async (uri) => reads[uri] as ResourceRead }) }),
    );
    const read = async (uri: string) =>
      (await pipeline.call('read_resource', { server: 'docs', uri }, run())).content;
    expect(await read('doc://blob-text')).toBe('héllo');
    expect(await read('doc://mixed')).toBe(
      '[resource doc://mixed#1 text/markdown]\npart one\n[binary doc://mixed#2 image/png, 2 bytes]\n[binary doc://mixed text/plain, 2 bytes]',
    );
    expect(await read('doc://empty')).toBe('resource "doc://empty" of server "docs" is empty');
  });

  it('passes the call signal to the plugin and throws CANCELLED when it aborts', async () => {
    let seen: AbortSignal | undefined;
    const { pipeline, run } = setup(
      directory({
        docs: catalog({
          readResource: (_uri, signal) => {
            seen = signal;
            return new Promise((_resolve, reject) => {
              signal?.addEventListener('abort', () => reject(new Error('aborted by the plugin')));
            });
          },
        }),
      }),
    );
    const controller = new AbortController();
    const call = pipeline.call(
      'read_resource',
      { server: 'docs', uri: 'doc://a' },
      run({ signal: controller.signal }),
    );
    await Promise.resolve();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(seen).toBe(controller.signal);
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: KernelErrorCode.CANCELLED });
  });

  it('goes through the permission pipeline: read-only mode asks', async () => {
    const { pipeline, run } = setup(directory({ docs: catalog() }));
    const approver = new ScriptedApprover({ outcome: 'deny' });
    await expect(
      pipeline.call(
        'read_resource',
        { server: 'docs', uri: 'doc://a' },
        run({ mode: 'read-only', approver }),
      ),
    ).rejects.toMatchObject({ code: KernelErrorCode.PERMISSION_DENIED });
    expect(approver.requests[0]).toMatchObject({ tool: 'read_resource', effect: 'external-read' });
  });
});

describe('HostOptions.hostTools', () => {
  it('registers the factory tools after the native ones, with the host mount', async () => {
    const host = createHost({
      projectRoot: '/p',
      connectors: [],
      entries: [ENTRY],
      hostTools: createResourceTools,
    });
    try {
      expect(host.registry.list().map((t) => t.name)).toEqual([...RESOURCE_TOOL_NAMES]);
      const run = await host.beginRun({ mode: 'project-write', initialWaitMs: 10 });
      const result = await host.pipeline.call(
        'read_resource',
        { server: 'docs', uri: 'doc://a' },
        run.context,
      );
      // The entry has no connector, so it failed: the tool says so with the mount's words.
      expect(result.isError).toBe(true);
      expect(result.content).toMatch(/^server "docs" is not connected/);
      await run.end();
    } finally {
      await host.close();
    }
  });
});
