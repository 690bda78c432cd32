/**
 * `clat exec`: a headless agent run of the real binary against a local OpenAI-compatible server
 * that requests tool calls, with real MCP servers behind the pipeline.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { prepareComponent, wasmCacheDir } from '@clat/adapter-wasm';
import { describe, expect, it } from 'vitest';
import {
  type FakeChatServer,
  fakeModelProvider,
  type ScriptedReply,
  startFakeChatServer,
} from './chat-server.js';
import { CLI_FIXTURES, useCliSandbox, WASM_COMPONENT, WASM_MANIFEST } from './support.js';

const API_KEY = 'sk-e2e-provider-key-0123456789';

let chat: FakeChatServer | undefined;

const sandbox = useCliSandbox(
  async () => {
    await sandbox.run(['trust']);
  },
  {
    teardown: async () => {
      await chat?.close();
      chat = undefined;
    },
  },
);

async function withModel(replies: ScriptedReply[]): Promise<FakeChatServer> {
  chat = await startFakeChatServer(replies);
  await sandbox.writeConfig({ provider: fakeModelProvider(chat.url, 'E2E_PROVIDER_KEY') });
  return chat;
}

function toolMessages(server: FakeChatServer, request: number) {
  return (server.requests[request]?.body.messages ?? []).filter((m) => m.role === 'tool');
}

describe('clat exec', () => {
  it('runs the model tool calls through the pipeline and prints the final answer', async () => {
    await sandbox.writeMcp({ notes: sandbox.notesServer() });
    const server = await withModel([
      {
        toolCalls: [
          { name: 'mcp_notes_add_note', arguments: { title: 'from model', body: 'exec e2e' } },
          { name: 'run_command', arguments: { command: 'echo should-not-run' } },
        ],
      },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }] },
      { text: 'Saved the note.' },
    ]);
    const result = await sandbox.run(['exec', 'Save a note about this project'], {
      env: { E2E_PROVIDER_KEY: API_KEY },
    });
    expect(result.stdout).toBe('Saved the note.\n');
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(3);

    const first = server.requests[0];
    expect(first?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(first?.body.model).toBe('fake-model');
    const offered = first?.body.tools?.map((tool) => tool.function.name) ?? [];
    expect(offered).toEqual(expect.arrayContaining(['read_file', 'mcp_notes_add_note']));
    expect(first?.body.messages.at(-1)).toEqual({
      role: 'user',
      content: 'Save a note about this project',
    });

    const [added, denied] = toolMessages(server, 1);
    expect(added?.tool_call_id).toBe('call_1_0');
    const { id } = JSON.parse(added?.content ?? '{}') as { id: string };
    expect(await readFile(join(sandbox.root, 'notes', 'notes.json'), 'utf8')).toContain(id);
    expect(denied?.content).toContain('run_command was not approved');
    expect(denied?.content).toContain('headless');
    expect(toolMessages(server, 2).at(-1)?.content).toContain('# e2e project');

    expect(result.stderr).toContain('→ mcp_notes_add_note');
    expect(result.stderr).toContain('✗ run_command');
    expect(`${result.stdout}${result.stderr}`).not.toContain(API_KEY);
  });

  it('prints the run as one JSON document with --json: the exact answer, each call, the usage', async () => {
    await sandbox.writeMcp({ notes: sandbox.notesServer() });
    await withModel([
      {
        toolCalls: [
          { name: 'mcp_notes_add_note', arguments: { title: 'json', body: 'b' } },
          { name: 'run_command', arguments: { command: 'echo no' } },
        ],
      },
      // Text a terminal would act on stays exact in JSON (escaped), not sanitised.
      { text: 'Done \u001b[31mred\u001b[0m.' },
    ]);
    const result = await sandbox.run(['exec', 'Save a note', '--json'], {
      env: { E2E_PROVIDER_KEY: API_KEY },
    });
    expect(result.code, result.stderr).toBe(0);
    const run = JSON.parse(result.stdout) as Record<string, unknown> & {
      toolCalls: Record<string, unknown>[];
    };
    expect(run).toMatchObject({
      answer: 'Done \u001b[31mred\u001b[0m.',
      exhausted: false,
      steps: 2,
      model: 'fake-model',
      usage: { inputTokens: 20, outputTokens: 10 },
    });
    expect(run.toolCalls).toHaveLength(2);
    expect(run.toolCalls[0]).toMatchObject({
      id: 'call_1_0',
      name: 'mcp_notes_add_note',
      arguments: '{"title":"json","body":"b"}',
      isError: false,
    });
    expect(run.toolCalls[0]?.result).toContain('"id": ');
    expect(run.toolCalls[1]).toMatchObject({ name: 'run_command' });
    expect(run.toolCalls[1]?.error).toContain('run_command was not approved');
    // Activity still goes to stderr; stdout is only the document.
    expect(result.stderr).toContain('→ mcp_notes_add_note');

    // Stopped at the step limit: the document says so, and the exit is 1.
    await withModel([{ toolCalls: [{ name: 'list_files', arguments: { path: '.' } }] }]);
    const stopped = await sandbox.run(['exec', 'loop', '--json', '--max-steps', '1'], {
      env: { E2E_PROVIDER_KEY: API_KEY },
    });
    expect(stopped.code).toBe(1);
    expect(JSON.parse(stopped.stdout)).toMatchObject({ answer: null, exhausted: true, steps: 1 });
    expect(stopped.stderr).toContain('stopped after 1 model steps without a final answer');
  });

  it('reads the prompt from stdin, and a saved approval of the project allows its tool headless', async () => {
    await sandbox.writeMcp({ notes: sandbox.notesServer() });
    // "p" at a prompt of a piped session saves run_command for this project.
    const saved = await sandbox.run(['chat'], {
      input: '/call run_command {"command":"echo first"}\np\n',
    });
    expect(saved.stdout).toContain(
      'Allow run_command? [y/N] (s = always this session, p = always in this project)',
    );
    const server = await withModel([
      {
        toolCalls: [
          { name: 'run_command', arguments: { command: 'echo headless-saved' } },
          { name: 'mcp_notes_delete_note', arguments: { id: 'x' } },
        ],
      },
      { text: 'Ran it.' },
    ]);
    const result = await sandbox.run(['exec', '-'], {
      input: 'Run the command\nthat was saved\n',
      env: { E2E_PROVIDER_KEY: API_KEY },
    });
    expect(result.stdout).toBe('Ran it.\n');
    expect(result.code).toBe(0);
    expect(server.requests[0]?.body.messages.at(-1)).toEqual({
      role: 'user',
      content: 'Run the command\nthat was saved',
    });
    expect(result.stderr).toContain(
      'Allowed run_command (execute): saved for this project; "clat approvals reset run_command" forgets it',
    );
    const [ran, denied] = toolMessages(server, 1);
    expect(ran?.content).toContain('headless-saved');
    expect(denied?.content).toContain(
      'mcp_notes_delete_note was not approved: destructive needs approval, no approver is attached (headless) and no saved approval of this project allows it',
    );

    // In read-only mode nothing remembered applies, headless too.
    const readOnly = await withModel([
      { toolCalls: [{ name: 'run_command', arguments: { command: 'echo read-only' } }] },
      { text: 'Denied.' },
    ]);
    const asked = await sandbox.run(['exec', '--mode', 'read-only', 'Run it'], {
      env: { E2E_PROVIDER_KEY: API_KEY },
    });
    expect(asked.code).toBe(0);
    expect(asked.stderr).not.toContain('saved for this project');
    expect(toolMessages(readOnly, 1)[0]?.content).toContain('run_command was not approved');

    // No words and nothing on stdin: refused, naming both ways to give the prompt.
    const empty = await sandbox.run(['exec']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain(
      'clat exec: the prompt on stdin is empty; pipe the prompt in, or give it as words after exec',
    );
  });

  it('fails elicitation cleanly: no question frontend in exec', async () => {
    await sandbox.writeMcp({ ask: sandbox.node(join(CLI_FIXTURES, 'ask-server.mjs')) });
    const server = await withModel([
      { toolCalls: [{ name: 'mcp_ask_ask_name', arguments: {} }] },
      { text: 'The form could not be shown.' },
    ]);
    const result = await sandbox.run(['exec', 'Ask me my name'], {
      env: { E2E_PROVIDER_KEY: API_KEY },
    });
    expect(result.stdout).toBe('The form could not be shown.\n');
    expect(result.code).toBe(0);
    const [elicited] = toolMessages(server, 1);
    const { error } = JSON.parse(elicited?.content ?? '{}') as { error?: { message: string } };
    expect(error?.message).toContain('no interactive frontend is attached');
  });

  it('explains a missing provider and a provider failure', async () => {
    const none = await sandbox.run(['exec', 'hello']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no model provider configured');
    await withModel([]);
    const failing = await sandbox.run(['exec', 'hello'], { env: { E2E_PROVIDER_KEY: API_KEY } });
    expect(failing.code).toBe(1);
    expect(failing.stderr).toContain('clat: ');
    expect(failing.stderr).not.toContain(API_KEY);
  });

  it('serves plugin sampling from the session model: a WASM tool summarizes a file', async () => {
    await prepareComponent({ componentPath: WASM_COMPONENT, cacheDir: wasmCacheDir(sandbox.home) });
    await writeFile(
      join(sandbox.home, 'plugins.json'),
      JSON.stringify({ 'wasm-summarize': { manifest: WASM_MANIFEST } }),
    );
    const server = await withModel([
      {
        toolCalls: [
          { name: 'wasm_wasm_summarize_summarize_file', arguments: { path: 'README.md' } },
        ],
      },
      // The plugin's sampling/createMessage, answered by the same provider.
      { text: 'A one-line e2e project.' },
      { text: 'The README describes a one-line e2e project.' },
    ]);
    const result = await sandbox.run(['exec', 'Summarize the README', '--mode', 'full-access'], {
      env: { E2E_PROVIDER_KEY: API_KEY },
    });
    expect(result.stdout).toBe('The README describes a one-line e2e project.\n');
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(3);
    // The sampling request carried the file the plugin read through the host, and no tools.
    const sampling = server.requests[1]?.body;
    expect(JSON.stringify(sampling?.messages)).toContain('# e2e project');
    expect(sampling?.tools).toBeUndefined();
    expect(toolMessages(server, 2)[0]?.content).toContain('A one-line e2e project.');
  });

  it('clat call serves plugin sampling from the configured provider', async () => {
    await prepareComponent({ componentPath: WASM_COMPONENT, cacheDir: wasmCacheDir(sandbox.home) });
    await writeFile(
      join(sandbox.home, 'plugins.json'),
      JSON.stringify({ 'wasm-summarize': { manifest: WASM_MANIFEST } }),
    );
    const server = await withModel([{ text: 'Summary from the configured model.' }]);
    const result = await sandbox.run(
      ['call', 'wasm_wasm_summarize_summarize_file', 'path=README.md', '--mode', 'full-access'],
      { env: { E2E_PROVIDER_KEY: API_KEY } },
    );
    expect(result.stderr).not.toContain('no session model');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Summary from the configured model.');
    expect(server.requests).toHaveLength(1);
    expect(JSON.stringify(server.requests[0]?.body.messages)).toContain('# e2e project');
    expect(result.stdout + result.stderr).not.toContain(API_KEY);
  });
});
