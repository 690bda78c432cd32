/**
 * The one way a configured URL is shown (status, errors, `--json`): some servers put the key in
 * the URL itself, as userinfo (`https://user:key@host`), a query parameter (`?api_key=`) or a
 * path segment (Zapier's `…/s/<secret>/mcp`).
 * @module
 */

// A generated token: 16 or more characters mixing letters and digits. Words (`completions`,
// `server-memory`) and short ids (`v1`, `2025-06-18`) stay readable.
const TOKEN_LENGTH = 16;

function looksLikeCredential(segment: string): boolean {
  return segment.length >= TOKEN_LENGTH && /[A-Za-z]/.test(segment) && /[0-9]/.test(segment);
}

/**
 * Origin and path of `url`: never its userinfo, query or fragment, and a path segment that looks
 * like a credential (16 or more characters mixing letters and digits) is shown as `…`. Text that
 * is not a URL is shown as `(not a valid URL)`, since it could be anything.
 */
export function shownUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '(not a valid URL)';
  }
  const path = parsed.pathname
    .split('/')
    .map((segment) => (looksLikeCredential(segment) ? '…' : segment))
    .join('/');
  return `${parsed.origin}${path}`;
}
