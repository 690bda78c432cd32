import { PassThrough } from 'node:stream';
import { RunEventStream } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { samplingWaitText, showSamplingWait } from './sampling-wait.js';

function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let out = '';
  stream.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  return { stream, text: () => out };
}

const ERASE = '\r\x1b[2K';

describe('showSamplingWait', () => {
  it('draws one line once the request is allowed and erases it when the model answers', () => {
    const events = new RunEventStream();
    const { stream, text } = capture();
    const hide = showSamplingWait(events, 'r1', stream);
    const base = { runId: 'r1', requestId: 's1', at: 0 };
    events.emit({
      ...base,
      type: 'sampling.requested',
      source: { kind: 'mcp', id: 'ev\u001b[2J' },
      messages: 1,
      chars: 2,
      maxTokens: 10,
    });
    expect(text()).toBe('');
    events.emit({ ...base, type: 'sampling.approved', by: 'user' });
    expect(text()).toBe(`${ERASE}asking the model for mcp:ev\\x1b[2J (Ctrl-C cancels)`);
    events.emit({ ...base, type: 'sampling.completed', model: 'm', usage: null });
    expect(text().endsWith(ERASE)).toBe(true);
    hide();
    // Nothing left to erase, and another run's events are not this call's.
    events.emit({ ...base, type: 'sampling.approved', by: 'user' });
    expect(text()).toBe(`${ERASE}asking the model for mcp:ev\\x1b[2J (Ctrl-C cancels)${ERASE}`);
  });

  it('erases a line still drawn when hidden (the call was cancelled)', () => {
    const events = new RunEventStream();
    const { stream, text } = capture();
    const hide = showSamplingWait(events, 'r1', stream);
    const base = { runId: 'r1', requestId: 's1', at: 0 };
    const source = { kind: 'mcp', id: 'ev' };
    events.emit({
      ...base,
      type: 'sampling.requested',
      source,
      messages: 1,
      chars: 2,
      maxTokens: 9,
    });
    events.emit({ ...base, type: 'sampling.approved', by: 'policy' });
    hide();
    expect(text()).toBe(`${ERASE}${samplingWaitText(source)}${ERASE}`);
  });
});
