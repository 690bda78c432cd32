import { LIMITS } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { readCallToolResult, toToolResult } from './call-result.js';
import { isMcpError, McpErrorCode } from './errors.js';

const PNG_1200 = 'A'.repeat(1600); // 1,600 base64 characters decode to 1,200 bytes

describe('readCallToolResult', () => {
  it('keeps every block kind as sent and renders a text-only view of each', () => {
    const blocks = [
      { type: 'text', text: 'hello' },
      { type: 'image', data: PNG_1200, mimeType: 'image/png', annotations: { priority: 1 } },
      { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
      {
        type: 'resource',
        resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'body' },
      },
      { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAAA' } },
      { type: 'resource_link', uri: 'file:///c.md', name: 'c', description: 'a note' },
    ];
    const read = readCallToolResult('srv', 'rich', { content: blocks });
    expect(read.content).toEqual(blocks);
    expect(read.content[1]).toBe(blocks[1]);
    const result = toToolResult('rich', read);
    expect(result.blocks).toEqual(blocks);
    expect(result.content).toBe(
      [
        'hello',
        '[image image/png 1.2 KiB]',
        '[audio audio/wav 3 B]',
        '[resource file:///a.txt text/plain 4 B]\nbody',
        '[resource file:///b.bin 3 B]',
        '[link file:///c.md "c": a note]',
      ].join('\n'),
    );
    expect(result.bytes).toBe(read.bytes);
  });

  it('gives structured content to a text-only reader as JSON when there is no text block', () => {
    const structured = { temperature: 21.5, conditions: 'sunny' };
    const only = toToolResult(
      'w',
      readCallToolResult('srv', 'w', { structuredContent: structured }),
    );
    expect(only.content).toBe(JSON.stringify(structured));
    expect(only.structured).toEqual(structured);
    const withText = toToolResult(
      'w',
      readCallToolResult('srv', 'w', {
        content: [{ type: 'text', text: 'sunny' }],
        structuredContent: structured,
      }),
    );
    expect(withText.content).toBe('sunny');
  });

  it('says which blocks it left out instead of dropping them silently', () => {
    const result = toToolResult(
      't',
      readCallToolResult('srv', 't', {
        content: [{ type: 'text', text: 'ok' }, { type: 'video', url: 'x' }, { type: 'image' }],
      }),
    );
    expect(result.content).toBe(
      'ok\n[content left out: content type "video" is unknown]\n[content left out: an image block needs string "data" and "mimeType"]',
    );
    expect(result.blocks).toEqual([{ type: 'text', text: 'ok' }]);
  });

  it('measures the whole result across blocks and structured output, and judges nothing', () => {
    const half = LIMITS.toolResultBytes / 2;
    const fits = readCallToolResult('srv', 'big', {
      content: [
        { type: 'image', data: 'A'.repeat(half - 'image/png'.length), mimeType: 'image/png' },
        { type: 'text', text: 'x'.repeat(half) },
      ],
    });
    expect(fits.bytes).toBe(LIMITS.toolResultBytes);
    // Over the limit is the pipeline's verdict (one owner); the adapter reports the size only.
    const over = readCallToolResult('srv', 'big', {
      content: [{ type: 'text', text: 'x'.repeat(half) }],
      structuredContent: { s: 'y'.repeat(half) },
    });
    expect(over.bytes).toBe(half + JSON.stringify({ s: 'y'.repeat(half) }).length);
    expect(toToolResult('big', over).bytes).toBe(over.bytes);
    // A frame size the transport measured wins over counting.
    expect(
      readCallToolResult('srv', 'big', { content: [] }, 2 * LIMITS.toolResultBytes).bytes,
    ).toBe(2 * LIMITS.toolResultBytes);
  });

  it('refuses structured content nested deeper than the limit without overflowing the stack', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const error = (() => {
      try {
        return readCallToolResult('srv', 'deep', { structuredContent: deep });
      } catch (e) {
        return e;
      }
    })();
    expect(isMcpError(error) && error.code).toBe(McpErrorCode.MCP_RESULT_TOO_LARGE);
  });

  it('names an empty result and a failed one', () => {
    expect(toToolResult('t', readCallToolResult('s', 't', {})).content).toBe(
      '(MCP tool "t" returned no content)',
    );
    expect(toToolResult('t', readCallToolResult('s', 't', { isError: true })).content).toBe(
      'MCP tool "t" failed',
    );
  });
});
