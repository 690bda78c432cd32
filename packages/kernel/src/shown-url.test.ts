import { describe, expect, it } from 'vitest';
import { hideCredentialSegments, shownUrl } from './shown-url.js';

describe('shownUrl', () => {
  it.each([
    ['https://user:pw-0123456789@mcp.example/mcp', 'https://mcp.example/mcp'],
    ['https://ghp_0123456789abcdefghij@git.example/mcp', 'https://git.example/mcp'],
    ['https://mcp.example/mcp?api_key=qk-abcdef123456#frag', 'https://mcp.example/mcp'],
    [
      'https://mcp.zapier.com/api/mcp/s/ZjY4MzE2NDItN2U1Ni00YjQ0LWE3ODAtNDk0OTc0NjA2ZDE5/mcp',
      'https://mcp.zapier.com/api/mcp/s/…/mcp',
    ],
    ['https://hooks.example/t/a3f9c2e4b1d0a3f9c2e4b1d0/sse', 'https://hooks.example/t/…/sse'],
    ['https://api.openai.com/v1/chat/completions', 'https://api.openai.com/v1/chat/completions'],
    [
      'https://open.bigmodel.cn/api/coding/paas/v4/chat/completions',
      'https://open.bigmodel.cn/api/coding/paas/v4/chat/completions',
    ],
    [
      'http://127.0.0.1:8080/servers/server-memory/2025-06-18',
      'http://127.0.0.1:8080/servers/server-memory/2025-06-18',
    ],
    ['https://mcp.example', 'https://mcp.example/'],
  ])('shows %s as %s', (url, shown) => {
    expect(shownUrl(url)).toBe(shown);
  });

  it('shows text that is not a URL as a placeholder, never the text', () => {
    expect(shownUrl('sk-proj-0123456789abcdef')).toBe('(not a valid URL)');
  });
});

describe('hideCredentialSegments', () => {
  it('hides token-like path segments and keeps the rest of the URL for the redactor', () => {
    expect(
      hideCredentialSegments(
        'https://u:p@mcp.zapier.com/api/mcp/s/ZjY4MzE2NDItN2U1Ni00YjQ0LWE3ODAtNDk0OTc0NjA2ZDE5/mcp?page=2#x',
      ),
    ).toBe('https://u:p@mcp.zapier.com/api/mcp/s/…/mcp?page=2#x');
    expect(hideCredentialSegments('https://mcp.example/v1/mcp')).toBe('https://mcp.example/v1/mcp');
    expect(hideCredentialSegments('not a url')).toBe('not a url');
  });
});
