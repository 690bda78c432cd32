import { describe, expect, it } from 'vitest';
import { MessageHeaders } from './message-headers.js';

const tool = (name: string, header: string) => ({
  name,
  inputSchema: { properties: { q: { type: 'string', 'x-mcp-header': header } } },
});

describe('MessageHeaders', () => {
  it('sends nothing before an era is set, and shares frozen objects where params do not matter', () => {
    const headers = new MessageHeaders();
    expect(headers.request('tools/list', undefined)).toEqual({});
    expect(headers.commonOptions).toEqual({ headers: {} });
    headers.useModern('2026-07-28');
    const list = headers.request('tools/list', {});
    expect(list).toEqual({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' });
    expect(headers.request('tools/list', { cursor: 'c' })).toBe(list);
    expect(Object.isFrozen(list)).toBe(true);
    expect(headers.commonOptions).toBe(headers.commonOptions);
    expect(headers.common).toEqual({ 'mcp-protocol-version': '2026-07-28' });
  });

  it('names the target of tools/call, prompts/get and resources/read in Mcp-Name', () => {
    const headers = new MessageHeaders();
    headers.useModern('2026-07-28');
    expect(headers.request('prompts/get', { name: 'greet' })['mcp-name']).toBe('greet');
    expect(headers.request('resources/read', { uri: 'file:///ä' })['mcp-name']).toBe(
      '=?base64?ZmlsZTovLy/DpA==?=',
    );
    // A target that is not a string is not named.
    expect(headers.request('tools/call', { name: 7 })['mcp-name']).toBeUndefined();
  });

  it('a new tool list replaces the declarations of the previous one', () => {
    const headers = new MessageHeaders();
    headers.useModern('2026-07-28');
    headers.learnTools([tool('search', 'Query')], () => {});
    const first = headers.request('tools/call', { name: 'search', arguments: { q: 'a' } });
    expect(first['mcp-param-query']).toBe('a');
    const dropped: string[] = [];
    const kept = headers.learnTools([tool('search', 'Q'), tool('broken', 'Bad Name')], (name) =>
      dropped.push(name),
    );
    expect(kept).toEqual([tool('search', 'Q')]);
    expect(dropped).toEqual(['broken']);
    const second = headers.request('tools/call', { name: 'search', arguments: { q: 'a' } });
    expect(second['mcp-param-query']).toBeUndefined();
    expect(second['mcp-param-q']).toBe('a');
  });

  it('legacy: the negotiated version on every message, nothing else', () => {
    const headers = new MessageHeaders();
    headers.useModern('2026-07-28');
    headers.useLegacy(undefined);
    expect(headers.modern).toBe(false);
    expect(headers.request('initialize', {})).toEqual({});
    headers.useLegacy('2025-06-18');
    const version = { 'mcp-protocol-version': '2025-06-18' };
    expect(headers.request('tools/call', { name: 'x' })).toEqual(version);
    expect(headers.commonOptions.headers).toEqual(version);
    expect(headers.protocolVersion).toBe('2025-06-18');
  });
});
