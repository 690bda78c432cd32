import { describe, expect, it } from 'vitest';
import { blobText } from './blob-text.js';

function blob(bytes: Uint8Array | string, mimeType?: string) {
  const data = Buffer.from(bytes).toString('base64');
  return {
    kind: 'blob' as const,
    blob: data,
    bytes: Buffer.from(bytes).length,
    ...(mimeType === undefined ? {} : { mimeType }),
  };
}

describe('blobText', () => {
  it('decodes UTF-8 blobs of text, JSON and XML types', () => {
    expect(blobText(blob('héllo', 'text/plain'))).toBe('héllo');
    expect(blobText(blob('# t', 'text/markdown; charset=UTF-8'))).toBe('# t');
    expect(blobText(blob('{"a":1}', 'application/json'))).toBe('{"a":1}');
    expect(blobText(blob('{}', 'application/ld+json'))).toBe('{}');
    expect(blobText(blob('<a/>', 'application/xml'))).toBe('<a/>');
    expect(blobText(blob('<svg/>', 'image/svg+xml'))).toBeUndefined();
  });

  it('keeps binary types, undeclared types, other charsets and invalid UTF-8 binary', () => {
    expect(blobText(blob('abc', 'image/png'))).toBeUndefined();
    expect(blobText(blob('abc'))).toBeUndefined();
    expect(blobText(blob('abc', 'application/octet-stream'))).toBeUndefined();
    expect(blobText(blob('abc', 'text/plain; charset=latin1'))).toBeUndefined();
    expect(blobText(blob(new Uint8Array([0x61, 0xff, 0x62]), 'text/plain'))).toBeUndefined();
    expect(blobText(blob(new Uint8Array([0x61, 0x00]), 'text/plain'))).toBeUndefined();
  });
});
