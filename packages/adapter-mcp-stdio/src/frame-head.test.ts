import { describe, expect, it } from 'vitest';
import { readFrameHead, readFrameTailId } from './frame-head.js';

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

describe('readFrameTailId', () => {
  it.each([
    ['xxxx"}]},"jsonrpc":"2.0","id":7}', 7],
    ['xxxx"}]},"jsonrpc":"2.0","id":"req-\\"7\\""}\r', 'req-"7"'],
    ['xx"},"id": -3 }\n', -3],
    // An "id" of a nested object, or one inside a string, is not the frame's.
    ['xx","id":7}}', undefined],
    ['xx\\",\\"id\\":7}"}', undefined],
    ['xx","id":null}', undefined],
    ['xx","idx":7}', undefined],
  ])('%s', (tail, id) => {
    expect(readFrameTailId(tail)).toBe(id);
  });
});
