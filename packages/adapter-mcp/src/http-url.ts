/**
 * The one check an HTTP entry's `url` must pass, shared by the schema (for a literal URL) and by
 * variable expansion (for a URL that holds `${VAR}` references, checkable only once expanded).
 * @module
 */

/** What is wrong with `url` as an MCP endpoint, or undefined when it is an absolute http(s) URL. */
export function httpUrlProblem(
  url: string,
): 'not an absolute URL' | 'not http or https' | undefined {
  if (!URL.canParse(url)) return 'not an absolute URL';
  if (!/^https?:\/\/[^/\s]/i.test(url)) return 'not http or https';
  return undefined;
}

const HEADER_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Message framing and connection headers: Node's fetch refuses a configured `Transfer-Encoding`,
 * `Expect`, `Keep-Alive` or `Upgrade` on every request, and a `Content-Length` that is not the
 * body's makes the server wait for bytes that never come. None of them ever worked.
 */
const FRAMING_HEADERS: ReadonlySet<string> = new Set([
  'content-length',
  'transfer-encoding',
  'expect',
  'keep-alive',
  'upgrade',
]);

/**
 * Returns the reason a configured header is unusable, or undefined; the message names the header,
 * never its value. fetch would reject the same header with an error that quotes the value. A
 * value with `${…}` references is checked by the transport once expanded.
 */
export function headerProblem(name: string, value: string): string | undefined {
  if (!HEADER_TOKEN.test(name))
    return `header name ${JSON.stringify(name)} is not a valid HTTP token`;
  if (FRAMING_HEADERS.has(name.toLowerCase()))
    return `header ${JSON.stringify(name)} is set by the HTTP client for each request (fetch refuses or mismatches a configured one); remove it`;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code > 0xff || code === 0x0a || code === 0x0d || code === 0x00) {
      return `header ${JSON.stringify(name)} has a value with line breaks or non-Latin-1 characters`;
    }
  }
  return undefined;
}

/** True when `value` holds a `${…}` reference, left for expansion at mount time. */
export function hasVariableReference(value: string): boolean {
  return value.includes('${');
}
