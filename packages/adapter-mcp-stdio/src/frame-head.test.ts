import { describe, expect, it } from 'vitest';
import { readFrameHead } from './frame-head.js';

describe('readFrameHead', () => {
  it.each([
    ['{"jsonrpc":"2.0","id":5,"result":{"content":[{"text":"zzz', 5, ['jsonrpc', 'id', 'result']],
    ['{"id":"req-\\"7\\"","result":"x', 'req-"7"', ['id', 'result']],
    ['{"result":{"id":9,"text":"zz', undefined, ['result']],
    [
      '{"jsonrpc":"2.0","method":"sampling/createMessage","id":3,"params":{"x":"',
      3,
      ['jsonrpc', 'method', 'id', 'params'],
    ],
    ['{"id":12', undefined, ['id']],
    ['{"id":null,"error":{"message":"', undefined, ['id', 'error']],
  ])('%s', (head, id, keys) => {
    const frame = readFrameHead(head);
    expect(frame.id).toBe(id);
    expect([...frame.keys]).toEqual(keys);
  });
});
