/**
 * DSH plugins end to end through CLAT: both example plugins are packaged with the real
 * `clat-dsh package` CLI, spawned by @clat/adapter-mcp-stdio, mounted by @clat/adapter-mcp into the
 * kernel registries, and driven through the ToolPipeline with a real PluginHostBridge, native
 * tools over a temp project, and a real HTTP search endpoint. Only the approver, the asker and
 * the session model are scripted.
 */
import { mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScriptedApprover, ScriptedAsker } from '@clat/kernel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSearchServer } from '../fixtures/dsh/search-server.mjs';
import { clatDsh, createDshHarness, type DshHarness, REPO, ScriptedModel } from './harness.js';

let h: DshHarness;
let search: Awaited<ReturnType<typeof startSearchServer>>;
let packages: string;
let outside: string;

const TODO = 'mcp_todo_todo_';
const todoFile = () => join(h.projectRoot, '.clat-todo.json');

beforeAll(async () => {
  search = await startSearchServer();
  packages = await mkdtemp(join(tmpdir(), 'clat-dsh-packages-'));
  for (const plugin of ['dsh-todo', 'dsh-web-search']) {
    const built = await clatDsh([
      'package',
      join(REPO, 'plugins', plugin),
      '--out',
      join(packages, plugin),
    ]);
    expect(built, built.stderr).toMatchObject({ code: 0 });
  }
  h = await createDshHarness(
    [
      {
        name: 'todo',
        command: join(packages, 'dsh-todo', 'server.mjs'),
        cwd: join(packages, 'dsh-todo'),
      },
      {
        name: 'todo-escape',
        command: join(packages, 'dsh-todo', 'server.mjs'),
        cwd: join(packages, 'dsh-todo'),
        env: { CLAT_PLUGIN_CONFIG: JSON.stringify({ file: 'escape/todo.json' }) },
      },
      {
        name: 'web',
        command: join(packages, 'dsh-web-search', 'server.mjs'),
        cwd: join(packages, 'dsh-web-search'),
        env: {
          CLAT_PLUGIN_CONFIG: JSON.stringify({
            endpoint: search.url,
            apiKey: 'fixture-key-123456',
          }),
        },
      },
    ],
    {
      async setupProject(root) {
        outside = `${root}-outside`;
        await mkdir(outside, { recursive: true });
        await symlink(outside, join(root, 'escape'));
      },
    },
  );
  for (const [name, server] of h.servers) {
    expect(server.status(), name).toMatchObject({ state: 'connected' });
  }
});

afterAll(async () => {
  await h?.close();
  await search?.close();
  await rm(packages, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

describe('mounting DSH servers', () => {
  it('registers mcp_{server}_{tool} with effects mapped from the tool hints (missing → destructive)', () => {
    const effects = Object.fromEntries(
      h.registry
        .list()
        .filter(
          (tool) => tool.name.startsWith('mcp_todo_todo_') || tool.name.startsWith('mcp_web_'),
        )
        .map((tool) => [tool.name, tool.effect]),
    );
    expect(effects).toEqual({
      mcp_todo_todo_list: 'external-read',
      mcp_todo_todo_add: 'write',
      mcp_todo_todo_done: 'write',
      mcp_todo_todo_clear: 'destructive',
      mcp_web_research: 'network',
      mcp_web_web_search: 'network',
    });
    expect(h.registry.get('mcp_todo_todo_add')?.definition.inputSchema).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string', minLength: 1, maxLength: 500 } },
      required: ['text'],
    });
  });

  it('speaks the modern era, so each DSH server ran in ONE process (apply once, probe kept)', () => {
    for (const name of ['todo', 'web']) {
      expect(h.servers.get(name)?.status()).toMatchObject({
        era: 'modern',
        protocolVersion: '2026-07-28',
      });
      expect(h.factories.get(name)?.spawnedPids).toHaveLength(1);
    }
  });

  it('imports the ONE marked system prompt per server, resolved with the project root as cwd', () => {
    const imported = h.prompts.list().filter((prompt) => prompt.source.id === 'todo');
    expect(imported).toHaveLength(1);
    const text = imported[0]?.text ?? '';
    expect(text).toContain(
      `You keep a todo list for multi-step work in the project at ${h.projectRoot}.`,
    );
    expect(text).toContain('file: .clat-todo.json');
    // The web-search plugin contributes no prompt sections, so it lists none.
    expect(h.prompts.list().filter((prompt) => prompt.source.id === 'web')).toEqual([]);
    expect(h.servers.get('web')?.status().prompts).toBe(0);
  });
});

describe('ctx.fs through the host-tool permission pipeline and path fence', () => {
  it('writes the todo file through write_file in Project Write, and reads it back through read_file', async () => {
    const approver = new ScriptedApprover({ outcome: 'deny', reason: 'should not be asked' });
    const { run, context } = h.beginRun({ mode: 'project-write', approver });
    try {
      const added = await h.call(`${TODO}add`, { text: 'write the DSH e2e' }, context);
      expect(added.isError, added.content).toBeFalsy();
      expect(added.structured).toEqual({ item: { id: 1, text: 'write the DSH e2e', done: false } });
      await h.call(`${TODO}add`, { text: 'ship it' }, context);
      const done = await h.call(`${TODO}done`, { id: 1 }, context);
      expect(done.structured).toEqual({ item: { id: 1, text: 'write the DSH e2e', done: true } });
      const listed = await h.call(`${TODO}list`, { include_done: true }, context);
      expect(listed.structured).toEqual({
        items: [
          { id: 1, text: 'write the DSH e2e', done: true },
          { id: 2, text: 'ship it', done: false },
        ],
        open: 1,
      });
      // Project Write allows Write host tools without a dialog.
      expect(approver.requests).toEqual([]);
    } finally {
      run.end();
    }
    expect(JSON.parse(await readFile(todoFile(), 'utf8'))).toMatchObject({
      version: 1,
      items: [{ id: 1 }, { id: 2 }],
    });
  });

  it('asks the approver for the host write in Read Only, with the raw arguments, and a denial writes nothing', async () => {
    const before = await readFile(todoFile(), 'utf8');
    // The plugin tool itself is Write, so the first dialog is for it (allowed); the second is the
    // host write_file it makes (denied).
    const approver = new ScriptedApprover(
      { outcome: 'allow' },
      { outcome: 'deny', reason: 'not today' },
    );
    const { run, context } = h.beginRun({ mode: 'read-only', approver });
    try {
      const result = await h.call(`${TODO}add`, { text: 'sneaky' }, context);
      expect(result.isError).toBe(true);
      expect(result.content).toMatch(/\[HOST_CALL_FAILED\].*not approved/);
      expect(approver.requests.map((request) => [request.tool, request.effect])).toEqual([
        ['mcp_todo_todo_add', 'write'],
        ['mcp:todo:host:write_file', 'write'],
      ]);
      expect(approver.requests[1]?.arguments).toMatchObject({ path: '.clat-todo.json' });
      const hostArgs = approver.requests[1]?.arguments as { content?: string } | undefined;
      expect(hostArgs?.content).toContain('sneaky');
    } finally {
      run.end();
    }
    expect(await readFile(todoFile(), 'utf8')).toBe(before);
  });

  it('lets CLAT’s path fence stop a host write that escapes the project through a symlink', async () => {
    const { run, context } = h.beginRun({ mode: 'full-access' });
    try {
      const result = await h.call('mcp_todo_escape_todo_add', { text: 'escape' }, context);
      expect(result.isError).toBe(true);
      expect(result.content).toMatch(
        /write_file failed: path "escape\/todo.json" is outside the project/,
      );
    } finally {
      run.end();
    }
    await expect(readFile(join(outside, 'todo.json'), 'utf8')).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });

  it('refuses host calls when no run is active', async () => {
    const result = await h.call(
      `${TODO}list`,
      {},
      {
        runId: 'no-such-run',
        mode: 'full-access',
        signal: new AbortController().signal,
      },
    );
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/\[HOST_CALL_FAILED\].*no active run/);
  });
});

describe('ctx.userQuestions.ask and ctx.clat through the bridge', () => {
  it('reaches the UserAsker as one question per field and maps the answer back', async () => {
    const asker = new ScriptedAsker((question) => ({
      kind: 'answer',
      text: question.options?.find((option) => option.label === 'finished')?.label ?? 'none',
    }));
    const { run, context } = h.beginRun({ mode: 'full-access', asker });
    try {
      const cleared = await h.call(`${TODO}clear`, {}, context);
      expect(cleared.isError, cleared.content).toBeFalsy();
      expect(cleared.structured).toEqual({ removed: 1, scope: 'finished', project: h.projectRoot });
    } finally {
      run.end();
    }
    expect(asker.questions).toHaveLength(1);
    expect(asker.questions[0]?.question).toContain('Which todo items should be removed?');
    expect(asker.questions[0]?.options?.map((option) => option.label)).toEqual([
      'finished',
      'all',
      'none',
    ]);
    expect(JSON.parse(await readFile(todoFile(), 'utf8')).items).toEqual([
      { id: 2, text: 'ship it', done: false },
    ]);
  });

  it('turns a declined question into a [USER_DECLINED] tool error', async () => {
    const { run, context } = h.beginRun({
      mode: 'full-access',
      asker: new ScriptedAsker({ kind: 'declined' }),
    });
    try {
      const result = await h.call(`${TODO}clear`, {}, context);
      expect(result.isError).toBe(true);
      expect(result.content).toContain('[USER_DECLINED]');
    } finally {
      run.end();
    }
  });
});

describe('web-search provider and ctx.llm.stream sampling', () => {
  it('serves the built-in web_search from the plugin provider against the HTTP endpoint', async () => {
    const { run, context } = h.beginRun({ mode: 'project-write' });
    try {
      const result = await h.call(
        'mcp_web_web_search',
        { queries: ['wasm component', 'mcp sampling'] },
        context,
      );
      expect(result.isError, result.content).toBeFalsy();
      const urls = (result.structured as { sources: { url: string }[] }).sources.map(
        (source) => source.url,
      );
      expect(urls).toContain('https://docs.example.test/wasm/components');
      expect(urls).toContain('https://docs.example.test/mcp/sampling');
      expect(new Set(urls).size).toBe(urls.length);
    } finally {
      run.end();
    }
    expect(
      search.requests.some((request) => request.authorization === 'Bearer fixture-key-123456'),
    ).toBe(true);
  });

  it('samples the session model through the bridge gates: approval with the full payload, then the model', async () => {
    const model = new ScriptedModel(() => 'Components wrap modules [1].');
    const approver = new ScriptedApprover({ outcome: 'allow' });
    const { run, context } = h.beginRun({ mode: 'project-write', model, approver });
    try {
      const result = await h.call('mcp_web_research', { question: 'wasm components' }, context);
      expect(result.isError, result.content).toBeFalsy();
      expect(result.structured).toMatchObject({
        summary: 'Components wrap modules [1].',
        sources: expect.arrayContaining(['https://docs.example.test/wasm/components']),
      });
      expect(run.usage().requests).toBe(1);
    } finally {
      run.end();
    }
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]?.system).toBe(
      'Answer in at most three sentences. Cite sources as [n].',
    );
    expect(model.requests[0]?.maxTokens).toBe(512);
    expect(model.requests[0]?.messages[0]?.text).toContain(
      '[1] WebAssembly components <https://docs.example.test/wasm/components>',
    );
    const sampling = approver.requests.find((request) => request.tool === 'mcp:web:sampling');
    expect(sampling?.effect).toBe('execute');
    expect(JSON.stringify(sampling?.arguments)).toContain(
      'Components wrap core wasm modules with WIT interfaces.',
    );
  });

  it('turns a denied sampling request into a tool error and never calls the model', async () => {
    const model = new ScriptedModel();
    const approver = new ScriptedApprover({ outcome: 'deny', reason: 'no model calls' });
    const { run, context } = h.beginRun({ mode: 'project-write', model, approver });
    try {
      const result = await h.call('mcp_web_research', { question: 'mcp elicitation' }, context);
      expect(result.isError).toBe(true);
      expect(result.content).toMatch(/not approved/);
    } finally {
      run.end();
    }
    expect(model.requests).toEqual([]);
  });
});
