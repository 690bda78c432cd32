/**
 * A packaged DSH plugin as users get it: `clat-dsh package` → `clat plugin install` (capability
 * review, config) → the store's verified launch entry → mounted through CLAT over real stdio,
 * with config arriving as CLAT_PLUGIN_CONFIG and the artifact dir as cwd.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScriptedApprover } from '@clat/kernel/testing';
import { installedServerEntries, PluginStore } from '@clat/packaging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSearchServer } from '../fixtures/dsh/search-server.mjs';
import { type ClatExit, execClat } from '../support/clat-bin.js';
import { clatDsh, createDshHarness, type DshHarness, REPO, ScriptedModel } from './harness.js';

let work: string;
let home: string;
let h: DshHarness | undefined;
let search: Awaited<ReturnType<typeof startSearchServer>>;

function clat(...args: string[]): Promise<ClatExit> {
  return execClat(args, { cwd: work, home });
}

beforeAll(async () => {
  if (!existsSync(join(REPO, 'apps/clat/dist/main.js'))) {
    throw new Error('apps/clat/dist is missing; run "pnpm build" before the e2e tests');
  }
  work = await mkdtemp(join(tmpdir(), 'clat-dsh-installed-'));
  home = join(work, 'home');
  search = await startSearchServer();
  for (const plugin of ['dsh-todo', 'dsh-web-search']) {
    const built = await clatDsh([
      'package',
      join(REPO, 'plugins', plugin),
      '--out',
      join(work, plugin),
    ]);
    expect(built.code, built.stderr).toBe(0);
  }
});

afterAll(async () => {
  await h?.close();
  await search?.close();
  await rm(work, { recursive: true, force: true });
});

describe('installed DSH packages', () => {
  it('installs after capability review and runs from the verified artifact with its config', async () => {
    const refused = await clat('plugin', 'install', join(work, 'dsh-todo'));
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('hostTools.write_file');
    expect(refused.stderr).toContain('elicitation');
    expect(
      (await clat('plugin', 'install', join(work, 'dsh-todo'), '--accept-capabilities')).code,
    ).toBe(0);
    const web = await clat(
      'plugin',
      'install',
      join(work, 'dsh-web-search'),
      '--accept-capabilities',
      '--config-json',
      JSON.stringify({ endpoint: search.url, maxResults: 2 }),
    );
    expect(web.code, web.stderr).toBe(0);

    const entries = await installedServerEntries(home);
    expect(entries.issues).toEqual([]);
    const servers = Object.fromEntries(entries.servers.map((server) => [server.name, server]));
    const todo = servers['dsh.todo'];
    const websearch = servers['dsh.web-search'];
    if (todo?.transport !== 'stdio' || websearch?.transport !== 'stdio')
      throw new Error('expected two stdio servers');
    const store = new PluginStore({ clatHome: home });
    const [row] = (await store.list()).filter((entry) => entry.id === 'dsh.todo');
    expect(todo.cwd).toBe(store.artifactDir('dsh.todo', row?.treeSha256 ?? ''));
    expect(JSON.parse(websearch.env?.CLAT_PLUGIN_CONFIG ?? '{}')).toEqual({
      endpoint: search.url,
      maxResults: 2,
    });

    h = await createDshHarness(
      [todo, websearch].map((server) => ({
        name: server.name,
        command: server.command,
        args: server.args ?? [],
        env: server.env ?? {},
        ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
      })),
    );
    for (const server of h.servers.values())
      expect(server.status()).toMatchObject({ state: 'connected', era: 'modern' });

    const model = new ScriptedModel(() => 'Sampling lets servers ask the model [1].');
    const { run, context } = h.beginRun({
      mode: 'project-write',
      model,
      approver: new ScriptedApprover({ outcome: 'allow' }),
    });
    try {
      const added = await h.call(
        'mcp_dsh_todo_todo_add',
        { text: 'from the installed package' },
        context,
      );
      expect(added.isError, added.content).toBeFalsy();
      const research = await h.call(
        'mcp_dsh_web_search_research',
        { question: 'mcp sampling' },
        context,
      );
      expect(research.isError, research.content).toBeFalsy();
      expect(research.structured).toMatchObject({
        summary: 'Sampling lets servers ask the model [1].',
      });
      // maxResults from the installed config reached the plugin: the endpoint was asked for 2.
      expect(search.requests.at(-1)?.path).toBe('/search?q=mcp+sampling&limit=2');
    } finally {
      run.end();
    }
    expect(
      JSON.parse(await readFile(join(h.projectRoot, '.clat-todo.json'), 'utf8')).items,
    ).toEqual([{ id: 1, text: 'from the installed package', done: false }]);
    expect(h.prompts.list().map((prompt) => prompt.source.id)).toEqual(['dsh.todo']);
  });

  it('is listed and called by the real clat binary (tools, call) in a trusted project', async () => {
    // The packages were installed into `home` by the test above.
    const project = await mkdtemp(join(tmpdir(), 'clat-dsh-cli-project-'));
    try {
      const tools = await clat('tools', '-C', project, '--trust');
      expect(tools.code, tools.stderr).toBe(0);
      expect(tools.stdout).toMatch(/mcp_dsh_todo_todo_add +write +mcp:dsh\.todo/);
      expect(tools.stdout).toMatch(/mcp_dsh_todo_todo_list +external-read/);
      expect(tools.stdout).toMatch(/mcp_dsh_web_search_web_search +network/);

      const called = await clat(
        'call',
        'mcp_dsh_todo_todo_add',
        JSON.stringify({ text: 'via clat call' }),
        '-C',
        project,
        '--trust',
        '--mode',
        'project-write',
      );
      expect(called.code, called.stderr).toBe(0);
      expect(JSON.parse(called.stdout)).toEqual({
        item: { id: 1, text: 'via clat call', done: false },
      });
      expect(
        JSON.parse(await readFile(join(project, '.clat-todo.json'), 'utf8')).items,
      ).toHaveLength(1);

      // Headless Read Only: the Write tool needs a dialog nobody can answer → denied, nothing written.
      const denied = await clat(
        'call',
        'mcp_dsh_todo_todo_add',
        JSON.stringify({ text: 'denied' }),
        '-C',
        project,
        '--trust',
        '--mode',
        'read-only',
      );
      expect(denied.code).toBe(3);
      expect(
        JSON.parse(await readFile(join(project, '.clat-todo.json'), 'utf8')).items,
      ).toHaveLength(1);
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  });
});
