/**
 * `clat-gateway` over stdio, driven by the official SDK v1 (`@modelcontextprotocol/sdk`) and v2
 * (`@modelcontextprotocol/client`) clients as separate real processes: native and MCP tools are
 * listed with CLAT names and effect annotations, calls go through the pipeline with the
 * gateway's mode, ask-effects are elicited or denied, and a long call is cancelled.
 */
import { execFile } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  GATEWAY_BIN,
  type GatewayWorld,
  gatewayStatus,
  gatewayStdio,
  gatewayWorld,
} from './support.js';

let world: GatewayWorld | undefined;
const clients: Array<{ close(): Promise<void> }> = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => {});
  await world?.cleanup();
  world = undefined;
});

function textOf(result: object): string {
  const blocks = ((result as { content?: unknown }).content ?? []) as Array<{
    type: string;
    text?: string;
  }>;
  return blocks.map((block) => block.text ?? '').join('\n');
}

interface ClientAnswers {
  /** Answers an approval elicitation: true accepts. Absent: no elicitation capability. */
  elicit?: (message: string) => boolean;
  /** Answers a sampling request with this text. Absent: no sampling capability. */
  sample?: (prompt: string) => string;
}

function capabilitiesOf(answers: ClientAnswers): Record<string, object> {
  return {
    ...(answers.elicit === undefined ? {} : { elicitation: {} }),
    ...(answers.sample === undefined ? {} : { sampling: {} }),
  };
}

function promptOf(params: { messages: Array<{ content: unknown }> }): string {
  return params.messages
    .map((message) => {
      const blocks = Array.isArray(message.content) ? message.content : [message.content];
      return blocks.map((block) => (block as { text?: string }).text ?? '').join('');
    })
    .join('\n');
}

async function v1(
  w: GatewayWorld,
  mode: string,
  answers: ClientAnswers | ((message: string) => boolean) = {},
) {
  const asks = typeof answers === 'function' ? { elicit: answers } : answers;
  const client = new ClientV1(
    { name: 'gateway-e2e-v1', version: '0.0.0' },
    { capabilities: capabilitiesOf(asks) },
  );
  const { elicit, sample } = asks;
  if (elicit !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, async (request) =>
      elicit(request.params.message)
        ? { action: 'accept', content: { approve: true } }
        : { action: 'decline' },
    );
  }
  if (sample !== undefined) {
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
      role: 'assistant',
      model: 'client-model-v1',
      content: { type: 'text', text: sample(promptOf(request.params)) },
      stopReason: 'endTurn',
    }));
  }
  await client.connect(new StdioV1(gatewayStdio(w, ['--mode', mode])));
  clients.push(client);
  return client;
}

async function v2(w: GatewayWorld, mode: string, answers: ClientAnswers = {}) {
  const client = new ClientV2(
    { name: 'gateway-e2e-v2', version: '0.0.0' },
    { capabilities: capabilitiesOf(answers), versionNegotiation: { mode: 'auto' } },
  );
  const { elicit, sample } = answers;
  if (elicit !== undefined) {
    client.setRequestHandler('elicitation/create', async (request) =>
      elicit(request.params.message)
        ? { action: 'accept', content: { approve: true } }
        : { action: 'decline' },
    );
  }
  if (sample !== undefined) {
    client.setRequestHandler('sampling/createMessage', async (request) => ({
      role: 'assistant',
      model: 'client-model-v2',
      content: { type: 'text', text: sample(promptOf(request.params)) },
      stopReason: 'endTurn',
    }));
  }
  await client.connect(new StdioV2(gatewayStdio(w, ['--mode', mode])));
  clients.push(client);
  return client;
}

/**
 * Starts `run_command` that would write a file after 2 s, cancels it after 0.5 s through the
 * client, and checks the call rejected and the file never appeared (the tool was stopped).
 */
async function expectCancelStopsTool(
  w: GatewayWorld,
  call: (
    params: { name: string; arguments: Record<string, unknown> },
    signal: AbortSignal,
  ) => Promise<unknown>,
): Promise<void> {
  const controller = new AbortController();
  const started = Date.now();
  const long = call(
    { name: 'run_command', arguments: { command: 'sleep 2 && echo late > too-late.txt' } },
    controller.signal,
  );
  setTimeout(() => controller.abort(new Error('user pressed stop')), 500);
  await expect(long).rejects.toThrow();
  // Past the moment the command would have written its file.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, 3000 - (Date.now() - started))));
  await expect(stat(join(w.project, 'too-late.txt'))).rejects.toThrow();
}

describe('clat-gateway over stdio', () => {
  it('serves native and MCP tools to an SDK v1 client and denies ask-effects in read-only mode', async () => {
    world = await gatewayWorld();
    const client = await v1(world, 'read-only');
    expect(client.getServerVersion()?.name).toBe('clat-gateway');
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect([...byName.keys()]).toEqual(
      expect.arrayContaining(['read_file', 'write_file', 'run_command', 'mcp_everything_echo']),
    );
    expect(byName.get('read_file')?.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get('write_file')?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
    });
    expect(byName.get('run_command')?.annotations).toMatchObject({ destructiveHint: true });
    expect(byName.get('write_file')?._meta).toMatchObject({ 'io.artec.clat/decision': 'ask' });

    const read = await client.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } });
    expect(read.isError).not.toBe(true);
    expect(textOf(read)).toContain('gateway notes');

    const echo = await client.callTool({
      name: 'mcp_everything_echo',
      arguments: { message: 'through the gateway' },
    });
    expect(echo.isError).toBe(true);
    expect(textOf(echo)).toContain('offers no elicitation');
    // The narrowest mode that allows it, not full-access.
    expect(textOf(echo)).toContain('restart clat-gateway with --mode project-write to allow it');

    const write = await client.callTool({
      name: 'write_file',
      arguments: { path: 'out.txt', content: 'nope' },
    });
    expect(write.isError).toBe(true);
    expect(textOf(write)).toContain('PERMISSION_DENIED');
    expect(textOf(write)).toContain('--mode project-write');
    await expect(stat(join(world.project, 'out.txt'))).rejects.toThrow();

    // Strict: both stages arrive, in order, before the result (the closing ping makes the v1
    // client handle every progress before it reads the response). Without the barrier about one
    // call in three lost the 'running' stage, so several calls are checked.
    for (let attempt = 0; attempt < 5; attempt++) {
      const progress: Array<{
        progress: number;
        total?: number | undefined;
        message?: string | undefined;
      }> = [];
      await client.callTool({ name: 'list_files', arguments: { path: '.' } }, undefined, {
        onprogress: (update) => progress.push(update),
      });
      expect(progress).toEqual([
        { progress: 1, total: 3, message: 'approved' },
        { progress: 2, total: 3, message: 'running' },
      ]);
    }

    const status = await client.readResource({ uri: 'clat://status' });
    const body = (status.contents[0] as { text: string }).text;
    const parsed = JSON.parse(body) as {
      mode: string;
      servers: Array<{ name: string; state: string }>;
    };
    expect(parsed.mode).toBe('read-only');
    expect(parsed.servers).toEqual([
      expect.objectContaining({ name: 'everything', state: 'connected' }),
    ]);
    expect(body).not.toContain('sk-gateway-secret-1234');
  });

  it('asks an elicitation-capable v1 client before an ask-effect and runs it on yes', async () => {
    world = await gatewayWorld();
    const asked: string[] = [];
    const client = await v1(world, 'read-only', (message) => {
      asked.push(message);
      return message.includes('write_file');
    });
    const write = await client.callTool({
      name: 'write_file',
      arguments: { path: 'approved.txt', content: 'approved by the client' },
    });
    expect(write.isError).not.toBe(true);
    expect(asked).toEqual([expect.stringContaining('write_file')]);
    expect(await readFile(join(world.project, 'approved.txt'), 'utf8')).toBe(
      'approved by the client',
    );

    const run = await client.callTool({ name: 'run_command', arguments: { command: 'echo hi' } });
    expect(run.isError).toBe(true);
    expect(textOf(run)).toContain('declin');
  });

  it('serves an SDK v2 client on the modern era, calls an MCP tool and cancels a long call', async () => {
    world = await gatewayWorld();
    const client = await v2(world, 'full-access');
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['list_files', 'mcp_everything_echo', 'mcp_everything_get_sum']),
    );
    const sum = await client.callTool({
      name: 'mcp_everything_get_sum',
      arguments: { a: 19, b: 23 },
    });
    expect(textOf(sum)).toContain('42');

    await expectCancelStopsTool(world, (params, signal) => client.callTool(params, { signal }));
    // The gateway is still healthy after the cancelled call.
    const again = await client.callTool({
      name: 'mcp_everything_echo',
      arguments: { message: 'still here' },
    });
    expect(textOf(again)).toContain('still here');

    // Stage progress on the modern era: the call runs long enough for both stages to be read.
    const progress: Array<{ progress: number; message?: string | undefined }> = [];
    await client.callTool(
      { name: 'run_command', arguments: { command: 'sleep 0.3' } },
      { onprogress: (update) => progress.push(update) },
    );
    expect(progress.map((update) => [update.progress, update.message])).toEqual([
      [1, 'approved'],
      [2, 'running'],
    ]);
  });

  it('cancels a long call of an SDK v1 client: the tool is stopped, the gateway stays up', async () => {
    world = await gatewayWorld();
    const client = await v1(world, 'full-access');
    await expectCancelStopsTool(world, (params, signal) =>
      client.callTool(params, undefined, { signal }),
    );
    const read = await client.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } });
    expect(textOf(read)).toContain('gateway notes');
  });

  it("relays an MCP server's own progress between the stages, growing, before the result", async () => {
    world = await gatewayWorld();
    const one = await v1(world, 'full-access');
    const two = await v2(world, 'full-access');
    const params = {
      name: 'mcp_everything_trigger_long_running_operation',
      arguments: { duration: 1, steps: 4 },
    };
    type Update = { progress: number; total?: number | undefined; message?: string | undefined };
    const calls: Array<(onprogress: (update: Update) => void) => Promise<object>> = [
      (onprogress) => one.callTool(params, undefined, { onprogress }),
      (onprogress) => two.callTool(params, { onprogress }),
    ];
    for (const [index, call] of calls.entries()) {
      const progress: Update[] = [];
      const result = await call((update) => progress.push(update));
      expect((result as { isError?: unknown }).isError, textOf(result)).not.toBe(true);
      // approved, running, then the server's four steps mapped into (2, 3).
      expect(progress.slice(0, 2).map((update) => update.message)).toEqual(['approved', 'running']);
      const upstream = progress.slice(2).map((update) => update.progress);
      if (index === 0) expect(upstream).toEqual([2.25, 2.5, 2.75, 2.999]);
      else {
        // 2026-07-28 has no server->client request for the closing barrier: the v2 client may
        // still drop the last step when it arrives in the same read as the result.
        expect(upstream.length).toBeGreaterThanOrEqual(3);
        expect(upstream).toEqual([2.25, 2.5, 2.75, 2.999].slice(0, upstream.length));
      }
      expect(progress.every((update) => update.total === 3)).toBe(true);
    }
  });

  it("routes a plugin's sampling request to a v1 client that offers sampling, else refuses it", async () => {
    world = await gatewayWorld();
    const prompts: string[] = [];
    const client = await v1(world, 'full-access', {
      sample: (prompt) => {
        prompts.push(prompt);
        return 'sampled by the gateway client';
      },
    });
    const sampled = await client.callTool({
      name: 'mcp_everything_trigger_sampling_request',
      arguments: { prompt: 'say hi', maxTokens: 50 },
    });
    expect(sampled.isError, textOf(sampled)).not.toBe(true);
    expect(textOf(sampled)).toContain('sampled by the gateway client');
    expect(textOf(sampled)).toContain('client-model-v1');
    expect(prompts).toEqual([expect.stringContaining('say hi')]);

    const bare = await v1(world, 'full-access');
    const refused = await bare.callTool({
      name: 'mcp_everything_trigger_sampling_request',
      arguments: { prompt: 'say hi', maxTokens: 50 },
    });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('offers no sampling');
  });

  it('asks a 2026-07-28 client through input_required rounds: approvals and plugin sampling', async () => {
    world = await gatewayWorld();
    const asked: string[] = [];
    const client = await v2(world, 'read-only', {
      elicit: (message) => {
        asked.push(message);
        return !message.includes('run_command');
      },
      sample: (prompt) => `modern answer to ${prompt.length} characters`,
    });
    expect(client.getProtocolEra()).toBe('modern');
    const write = await client.callTool({
      name: 'write_file',
      arguments: { path: 'modern.txt', content: 'approved over input_required' },
    });
    expect(textOf(write)).not.toContain('PERMISSION_DENIED');
    expect(write.isError).not.toBe(true);
    expect(await readFile(join(world.project, 'modern.txt'), 'utf8')).toBe(
      'approved over input_required',
    );
    const run = await client.callTool({ name: 'run_command', arguments: { command: 'echo hi' } });
    expect(run.isError).toBe(true);
    expect(textOf(run)).toContain('declin');
    expect(asked).toEqual([
      expect.stringContaining('write_file'),
      expect.stringContaining('run_command'),
    ]);

    // The plugin's tool needs approval in read-only mode, then its sampling request does too;
    // both are asked, then the client samples, all over retried rounds of one call.
    asked.length = 0;
    const sampled = await client.callTool({
      name: 'mcp_everything_trigger_sampling_request',
      arguments: { prompt: 'modern hi', maxTokens: 40 },
    });
    expect(sampled.isError).not.toBe(true);
    expect(textOf(sampled)).toContain('modern answer to');
    expect(textOf(sampled)).toContain('client-model-v2');
    expect(asked).toEqual([
      expect.stringContaining('mcp_everything_trigger_sampling_request'),
      expect.stringContaining('sampling'),
    ]);
  });

  it('starts a server that crashed again at the next call of its tools, and clat://status says so', async () => {
    world = await gatewayWorld();
    const crashy = fileURLToPath(
      new URL('../fixtures/mcp-servers/crash-mid-call.mjs', import.meta.url),
    );
    await writeFile(
      join(world.home, 'mcp.json'),
      JSON.stringify({ crashy: { command: process.execPath, args: [crashy] } }),
    );
    const client = await v1(world, 'full-access');
    const echo = (text: string) =>
      client.callTool({ name: 'mcp_crashy_echo', arguments: { text } });
    const crashyStatus = async () => {
      const { servers } = JSON.parse(await gatewayStatus(client)) as {
        servers: Array<{ name: string; state: string; warnings: string[]; failure?: string }>;
      };
      return servers.find((server) => server.name === 'crashy');
    };
    expect(textOf(await echo('before'))).toBe('before');
    // The call in flight fails with the exit and is not sent again.
    const crashed = await client.callTool({ name: 'mcp_crashy_crash', arguments: {} });
    expect(crashed.isError).toBe(true);
    expect(textOf(crashed)).toContain('closed the connection: exited with code 139');
    const down = await crashyStatus();
    expect(down?.state).toBe('failed');
    expect(JSON.stringify(down)).toContain('the next call of one of its tools starts it again');
    // The next call is answered by a new process, behind the same tool.
    const after = await echo('after');
    expect(after.isError).not.toBe(true);
    expect(textOf(after)).toBe('after');
    const up = await crashyStatus();
    expect(up?.state).toBe('connected');
    expect(JSON.stringify(up)).toContain('restart 1 of 3 this session');
  });

  it('prints its version with --version, and --help names it', async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number; stdout: string }>((resolve) => {
        execFile(process.execPath, [GATEWAY_BIN, ...args], { timeout: 30_000 }, (error, stdout) =>
          resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout }),
        );
      });
    expect(await run(['--version'])).toEqual({ code: 0, stdout: 'clat-gateway 0.1.0\n' });
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('clat-gateway --help | --version');
  });

  it('refuses an untrusted project before starting anything', async () => {
    world = await gatewayWorld({ trusted: false });
    const w = world;
    const result = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [GATEWAY_BIN, '--project', w.project],
        { env: w.env, timeout: 30_000 },
        (error, _stdout, stderr) =>
          resolve({ code: typeof error?.code === 'number' ? error.code : 0, stderr }),
      );
    });
    expect(result.code).toBe(1);
    // The CLAT home it read, and two ways on: the record (clat may not be installed beside the
    // gateway), or --trust for this run, which serves the project.
    expect(result.stderr).toContain(
      `project ${w.project} is not trusted in ${join(w.env.CLAT_HOME ?? '', 'trust.json')}, so no MCP server was started; record it with "clat trust ${w.project}" (package @clat/cli, the same CLAT home), or add --trust to the gateway's arguments to serve it for this run`,
    );
    expect(result.stderr).toContain('GATEWAY_PROJECT_UNTRUSTED');
    const client = new ClientV1({ name: 'gateway-e2e-trust', version: '0.0.0' });
    await client.connect(new StdioV1(gatewayStdio(w, ['--trust'])));
    clients.push(client);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('read_file');
  });
});
