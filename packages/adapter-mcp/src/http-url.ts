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

/** True when `value` holds a `${…}` reference, left for expansion at mount time. */
export function hasVariableReference(value: string): boolean {
  return value.includes('${');
}
