/**
 * Issue 15 items 3, 4 and 6 through the real `clat` binary: rich tool content (`clat call`
 * summary vs `--json`, the 1 MiB limit across blocks, images to a vision model), progress lines
 * and cancel mid-progress, and task-augmented calls (completed, cancelled, not offered), against
 * server-everything (legacy, SDK v1), an SDK v2 fixture (modern) and an SDK v1 task fixture.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type FakeChatServer, startFakeChatServer } from './chat-server.js';
import {
  CLAT_BIN,
  type ClatResult,
  EVERYTHING_SERVER,
  parseJsonOutput,
  STDIO_FIXTURES,
  useCliSandbox,
} from './support.js';

const PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

let chat: FakeChatServer | undefined;

const sandbox = useCliSandbox(undefined, {
  teardown: async () => {
    await chat?.close();
    chat = undefined;
  },
});

function events(): string {
  return join(sandbox.root, 'fixture-events.log');
}

async function readEvents(): Promise<string[]> {
  try {
    return (await readFile(events(), 'utf8')).split('\n').filter((line) => line !== '');
  } catch {
    return [];
  }
}

async function mount(servers: Record<string, 'rich' | 'everything' | 'tasks' | 'tasks-off'>) {
  const config: Record<string, unknown> = {};
  for (const [name, kind] of Object.entries(servers)) {
    const env = { CLAT_FIXTURE_EVENTS: events() };
    if (kind === 'rich') {
      config[name] = { ...sandbox.node(join(STDIO_FIXTURES, 'rich-content.mjs')), env };
    } else if (kind === 'everything') {
      config[name] = sandbox.node(EVERYTHING_SERVER, 'stdio');
    } else {
      config[name] = {
        ...sandbox.node(join(STDIO_FIXTURES, 'task-server.mjs')),
        env: kind === 'tasks-off' ? { ...env, TASKS_OFF: '1' } : env,
      };
    }
  }
  await sandbox.writeMcp(config);
  await sandbox.run(['trust']);
}

/**
 * Runs `clat` and sends SIGINT once stderr matches `when`, as Ctrl-C would; resolves with how
 * it ended and how long the exit took after the interrupt.
 */
function interruptWhen(
  args: string[],
  when: RegExp,
): Promise<ClatResult & { afterInterruptMs: number }> {
  const child = spawn(process.execPath, [CLAT_BIN, ...args], {
    cwd: sandbox.project,
    env: sandbox.env(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let interruptedAt = 0;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    if (interruptedAt === 0 && when.test(stderr)) {
      interruptedAt = Date.now();
      child.kill('SIGINT');
    }
  });
  const guard = setTimeout(() => child.kill('SIGKILL'), 45_000);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal, stdout, stderr, afterInterruptMs: Date.now() - interruptedAt });
    });
  });
}

describe('rich tool content through clat call', () => {
  it('summarises image, audio, embedded resources and links, and --json keeps every block (SDK v2, modern)', async () => {
    await mount({ rich: 'rich' });
    const pixel = await sandbox.run(['call', 'mcp_rich_pixel', '{}']);
    expect(pixel.code).toBe(0);
    expect(pixel.stdout).toBe('a pixel:\n[image image/png 70 B]\n');
    const clip = await sandbox.run(['call', 'mcp_rich_clip', '{}']);
    expect(clip.stdout).toBe('[audio audio/wav 2.9 KiB]\n');
    const files = await sandbox.run(['call', 'mcp_rich_files', '{}']);
    expect(files.stdout).toBe(
      [
        '[resource file:///notes/todo.txt text/plain 8 B]',
        'buy milk',
        '[resource file:///notes/logo.bin application/octet-stream 2.0 KiB]',
        '[link file:///notes/big.pdf application/pdf "big.pdf": the full report]',
        '',
      ].join('\n'),
    );

    const json = parseJsonOutput<{ blocks: unknown[]; content: string }>(
      await sandbox.run(['call', 'mcp_rich_pixel', '{}', '--json']),
    );
    expect(json.blocks).toEqual([
      { type: 'text', text: 'a pixel:' },
      { type: 'image', data: PIXEL_PNG, mimeType: 'image/png' },
    ]);
    const filesJson = parseJsonOutput<{ blocks: { type: string; resource?: { blob?: string } }[] }>(
      await sandbox.run(['call', 'mcp_rich_files', '{}', '--json']),
    );
    expect(filesJson.blocks.map((block) => block.type)).toEqual([
      'resource',
      'resource',
      'resource_link',
    ]);
    expect(Buffer.from(filesJson.blocks[1]?.resource?.blob ?? '', 'base64')).toEqual(
      Buffer.alloc(2048, 7),
    );
  });

  it('gives structured-only output as JSON text and bounds the result across blocks', async () => {
    await mount({ rich: 'rich' });
    const forecast = await sandbox.run(['call', 'mcp_rich_forecast', '{"city":"Oslo"}']);
    expect(forecast.code).toBe(0);
    expect(forecast.stdout).toBe('{"city":"Oslo","celsius":21.5}\n');
    // Half a MiB of image plus half a MiB of structured output: each fits, together they do not.
    const bulky = await sandbox.run(['call', 'mcp_rich_bulky', '{}']);
    expect(bulky.code).not.toBe(0);
    expect(bulky.stdout).toBe('');
    expect(bulky.stderr).toMatch(/returned \d+ bytes, over the tool result limit of 1048576 bytes/);
  });

  it('keeps the image and links of server-everything (SDK v1, legacy)', async () => {
    await mount({ everything: 'everything' });
    const image = await sandbox.run(['call', 'mcp_everything_get_tiny_image', '{}']);
    expect(image.code).toBe(0);
    expect(image.stdout).toMatch(
      /^Here's the image you requested:\n\[image image\/png [\d.]+ KiB\]\n/,
    );
    const json = parseJsonOutput<{ blocks: { type: string; data?: string }[] }>(
      await sandbox.run(['call', 'mcp_everything_get_tiny_image', '{}', '--json']),
    );
    const png = Buffer.from(json.blocks.find((b) => b.type === 'image')?.data ?? '', 'base64');
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    const links = await sandbox.run(['call', 'mcp_everything_get_resource_links', '{"count":2}']);
    expect(links.stdout).toContain(
      '[link demo://resource/dynamic/text/2 text/plain "Text Resource 2"',
    );
  });
});

describe('progress through clat call', () => {
  it('prints each progress report as a sanitised plain line on a non-TTY stderr (modern)', async () => {
    await mount({ rich: 'rich' });
    const result = await sandbox.run(['call', 'mcp_rich_steps', '{"steps":3,"ms":50}']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('3 steps done\n');
    const lines = result.stderr.split('\n').filter((line) => line.includes('mcp_rich_steps'));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^clat: mcp_rich_steps: 33% \(1\/3\) - step 1.*red$/);
    expect(result.stderr).not.toContain('\u001b');
    expect(await readEvents()).toContain('steps token=string');
  });

  it('shows the progress of server-everything (legacy)', async () => {
    await mount({ everything: 'everything' });
    const result = await sandbox.run([
      'call',
      'mcp_everything_trigger_long_running_operation',
      '{"duration":1,"steps":2}',
    ]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      'clat: mcp_everything_trigger_long_running_operation: 50% (1/2)',
    );
    expect(result.stderr).toContain('100% (2/2)');
  });

  it('shows progress and the content summary in the session too', async () => {
    await mount({ rich: 'rich' });
    const result = await sandbox.run(['chat', '--trust'], {
      input: '/call mcp_rich_steps {"steps":2,"ms":50}\n/call mcp_rich_pixel\n/exit\n',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('  … mcp_rich_steps: 50% (1/2) - step 1');
    expect(result.stdout).toContain('  … mcp_rich_steps: 100% (2/2) - step 2');
    expect(result.stdout).toContain('2 steps done');
    expect(result.stdout).toContain('a pixel:\n[image image/png 70 B]');
    expect(result.stdout).not.toContain('\u001b[31m');
  });

  it('cancels promptly mid-progress on Ctrl-C', async () => {
    await mount({ rich: 'rich' });
    const result = await interruptWhen(
      ['call', 'mcp_rich_steps', '{"steps":40,"ms":250}'],
      /mcp_rich_steps: \d+% \(1\/40\)/,
    );
    expect(result.code).toBe(130);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('cancelled');
    expect(result.afterInterruptMs).toBeLessThan(5_000);
  });
});

describe('task-augmented tool calls', () => {
  it('runs a task-required tool to completion with its statuses, and an optional one plainly', async () => {
    await mount({ tasks: 'tasks' });
    const status = await sandbox.run(['mcp']);
    expect(status.stdout).toContain(
      'tasks: offered: 1 tool runs as a task, 1 optional (called plainly)',
    );
    const result = await sandbox.run(['call', 'mcp_tasks_crunch', '{"steps":3,"ms":150}']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('crunched 3 steps\n');
    expect(result.stderr).toMatch(/mcp_tasks_crunch: task [0-9a-f]+ working/);
    expect(result.stderr).toMatch(/working - step \d\/3/);
    expect(result.stderr).toMatch(/task [0-9a-f]+ completed/);
    // Optional: called plainly, so no task statuses reach the user.
    const quick = await sandbox.run(['call', 'mcp_tasks_quick', '{"word":"hi"}']);
    expect(quick.stdout).toBe('quick hi\n');
    expect(quick.stderr).not.toContain('task ');
    expect((await readEvents()).some((line) => line.startsWith('crunch completed'))).toBe(true);
  });

  it('cancels a running task through tasks/cancel on Ctrl-C', async () => {
    await mount({ tasks: 'tasks' });
    const result = await interruptWhen(
      ['call', 'mcp_tasks_crunch', '{"steps":100,"ms":100}'],
      /working - step \d+\/100/,
    );
    expect(result.code).toBe(130);
    expect(result.afterInterruptMs).toBeLessThan(5_000);
    // The server saw the cancel: its background work stopped at the cancelled status.
    await expect
      .poll(readEvents, { timeout: 5_000 })
      .toEqual(expect.arrayContaining([expect.stringMatching(/^crunch cancelled /)]));
    expect((await readEvents()).some((line) => line.startsWith('crunch completed'))).toBe(false);
  });

  it('completes the research task of server-everything (legacy, real server)', async () => {
    await mount({ everything: 'everything' });
    const result = await sandbox.run(
      [
        'call',
        'mcp_everything_simulate_research_query',
        '{"topic":"tides"}',
        '--mode',
        'full-access',
      ],
      { timeoutMs: 40_000 },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('# Research Report: tides');
    expect(result.stderr).toContain('working - Gathering sources...');
  });

  it('leaves a task-required tool out, visibly, when the server offers no tasks', async () => {
    await mount({ tasks: 'tasks-off' });
    const status = await sandbox.run(['mcp']);
    expect(status.stdout).toContain(
      'tasks: not offered: 1 optional (called plainly), 1 tool that requires tasks left out',
    );
    expect(status.stdout).toContain(
      'tool "crunch" of "tasks" left out: it requires task-augmented calls, which the server does not offer',
    );
    const call = await sandbox.run(['call', 'mcp_tasks_crunch', '{"steps":1,"ms":1}']);
    expect(call.code).not.toBe(0);
    expect(call.stderr).toContain('tool "mcp_tasks_crunch" is not registered');
  });
});

describe('tool images and the model', () => {
  async function withModel(imageInput: boolean): Promise<FakeChatServer> {
    chat = await startFakeChatServer([
      { toolCalls: [{ name: 'mcp_rich_pixel', arguments: {} }] },
      { text: 'a single pixel' },
    ]);
    await sandbox.writeConfig({
      provider: {
        kind: 'openai-compatible',
        vendor: 'local',
        baseUrl: chat.url,
        model: 'fake-vision',
        ...(imageInput ? { imageInput: true } : {}),
      },
    });
    return chat;
  }

  it('sends tool images to a model that reads images, as image_url data URIs', async () => {
    await mount({ rich: 'rich' });
    const server = await withModel(true);
    const result = await sandbox.run(['exec', 'what did the pixel tool return?']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('a single pixel\n');
    const messages = server.requests[1]?.body.messages as unknown as {
      role: string;
      content: unknown;
    }[];
    expect(messages.at(-2)).toMatchObject({
      role: 'tool',
      content: 'a pixel:\n[image image/png 70 B]',
    });
    expect(messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Here is the image tool call call_1_0 (mcp_rich_pixel) returned.' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PIXEL_PNG}` } },
      ],
    });
  });

  it('gives a text-only model the image label only', async () => {
    await mount({ rich: 'rich' });
    const server = await withModel(false);
    const result = await sandbox.run(['exec', 'what did the pixel tool return?']);
    expect(result.code).toBe(0);
    const messages = server.requests[1]?.body.messages ?? [];
    expect(messages.at(-1)).toMatchObject({
      role: 'tool',
      content: 'a pixel:\n[image image/png 70 B]',
    });
    expect(JSON.stringify(messages)).not.toContain('image_url');
  });
});
