/**
 * The one rule for showing a configured URL (status, errors, listings, `--json`): some servers put
 * the key in the URL itself, as userinfo (`https://user:key@host`), a query parameter
 * (`?api_key=`) or a path segment (Zapier's `…/s/<secret>/mcp`).
 * @module
 */

// A generated token: 16 or more characters mixing letters and digits. Words (`completions`,
// `server-memory`) and short ids (`v1`, `2025-06-18`) stay readable.
const TOKEN_LENGTH = 16;

function looksLikeCredential(segment: string): boolean {
  return segment.length >= TOKEN_LENGTH && /[A-Za-z]/.test(segment) && /[0-9]/.test(segment);
}

function hiddenPath(pathname: string): string {
  return pathname
    .split('/')
    .map((segment) => (looksLikeCredential(segment) ? '…' : segment))
    .join('/');
}

function parse(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/**
 * Origin and path of `url`: never its userinfo, query or fragment, and a path segment that looks
 * like a credential (16 or more characters mixing letters and digits) is shown as `…`. Text that
 * is not a URL is shown as `(not a valid URL)`, since it could be anything.
 */
export function shownUrl(url: string): string {
  const parsed = parse(url);
  if (parsed === undefined) return '(not a valid URL)';
  return `${parsed.origin}${hiddenPath(parsed.pathname)}`;
}

/**
 * `url` whole, with each path segment that looks like a credential shown as `…`: for listings of
 * the configuration itself, which also pass the result through `redactSecrets` for userinfo and
 * secret-named query parameters. Text that is not a URL is returned as it is.
 */
export function hideCredentialSegments(url: string): string {
  const parsed = parse(url);
  if (parsed === undefined || parsed.origin === 'null') return url;
  const userinfo =
    parsed.username === '' && parsed.password === ''
      ? ''
      : `${parsed.username}${parsed.password === '' ? '' : `:${parsed.password}`}@`;
  return `${parsed.protocol}//${userinfo}${parsed.host}${hiddenPath(parsed.pathname)}${parsed.search}${parsed.hash}`;
}
