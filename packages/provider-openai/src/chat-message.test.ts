import { describe, expect, it } from 'vitest';
import { toWireMessage } from './chat-message.js';

describe('toWireMessage', () => {
  it('sends image parts as image_url data URIs and text parts as text', () => {
    expect(
      toWireMessage({
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image', mimeType: 'image/png', data: 'AA==' },
        ],
      }),
    ).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'look' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AA==' } },
      ],
    });
  });

  it('keeps plain messages and tool calls as before', () => {
    expect(toWireMessage({ role: 'user', content: 'hi' })).toEqual({ role: 'user', content: 'hi' });
    expect(
      toWireMessage({
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'c1', name: 'f', arguments: '{}' }],
      }),
    ).toEqual({
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
    });
    expect(toWireMessage({ role: 'tool', toolCallId: 'c1', content: 'ok' })).toEqual({
      role: 'tool',
      tool_call_id: 'c1',
      content: 'ok',
    });
  });
});
