import { describe, expect, it } from 'vitest';
import { KernelErrorCode } from './errors.js';
import { RunEventStream } from './events.js';
import { LIMITS } from './limits.js';
import { ToolPipeline } from './pipeline.js';
import { createGlobalScope } from './scope.js';
import { base64DecodedBytes, formatByteSize, renderToolContent } from './tool-content.js';
import { type Tool, ToolRegistry } from './tool-registry.js';

function pipelineWith(invoke: Tool['invoke']) {
  const registry = new ToolRegistry();
  const events = new RunEventStream();
  registry.register(
    {
      definition: {
        name: 't',
        description: 'a tool',
        inputSchema: { type: 'object' },
        effect: 'pure',
        source: { kind: 'mcp', id: 's' },
      },
      invoke,
    },
    createGlobalScope(),
  );
  return { events, pipeline: new ToolPipeline({ registry, events }) };
}

describe('tool content', () => {
  it('measures base64 without decoding and formats sizes', () => {
    expect(base64DecodedBytes('AAAA')).toBe(3);
    expect(base64DecodedBytes('AAA=')).toBe(2);
    expect(base64DecodedBytes('AA==')).toBe(1);
    expect(formatByteSize(1000)).toBe('1000 B');
    expect(formatByteSize(1229)).toBe('1.2 KiB');
    expect(formatByteSize(3 * 1024 * 1024)).toBe('3.0 MiB');
  });

  it('renders structured output only when no block is text', () => {
    const image = { type: 'image' as const, data: 'AA==', mimeType: 'image/png' };
    expect(renderToolContent([image], '{"a":1}')).toBe('[image image/png 1 B]\n{"a":1}');
    expect(renderToolContent([{ type: 'text', text: 'hi' }, image], '{"a":1}')).toBe(
      'hi\n[image image/png 1 B]',
    );
  });
});

describe('the pipeline and rich results', () => {
  it('turns progress reports into tool.progress events until the run is cancelled', async () => {
    const controller = new AbortController();
    const { events, pipeline } = pipelineWith(async (_args, ctx) => {
      ctx.progress?.({ progress: 1, total: 4, message: 'first' });
      ctx.progress?.({ task: { id: 'x1', status: 'working' } });
      controller.abort('stop');
      ctx.progress?.({ progress: 2, total: 4 });
      return { content: 'ok' };
    });
    const seen = events.record((event) => event.type === 'tool.progress');
    await pipeline
      .call('t', {}, { runId: 'r', mode: 'read-only', signal: controller.signal }, { callId: 'c1' })
      .catch(() => {});
    expect(seen.events.map(({ at: _at, ...rest }) => rest)).toEqual([
      {
        type: 'tool.progress',
        runId: 'r',
        callId: 'c1',
        tool: 't',
        progress: 1,
        total: 4,
        message: 'first',
      },
      {
        type: 'tool.progress',
        runId: 'r',
        callId: 'c1',
        tool: 't',
        task: { id: 'x1', status: 'working' },
      },
    ]);
  });

  it('bounds the byte count a rich result declares, not only its text', async () => {
    const { pipeline } = pipelineWith(async () => ({
      content: '[image image/png 1.0 MiB]',
      bytes: LIMITS.toolResultBytes + 1,
    }));
    const error = await pipeline
      .call('t', {}, { runId: 'r', mode: 'read-only', signal: new AbortController().signal })
      .catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe(KernelErrorCode.LIMIT_EXCEEDED);
  });
});
