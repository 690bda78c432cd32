/**
 * Recognizing a server that forgot the legacy session a message carried (mcp-protocol.md §4.7).
 * The spec's answer is 404. SDK 1.x servers such as server-everything answer a session id they do
 * not know with 400 and the JSON-RPC error "Bad Request: No valid session ID provided", so a 400
 * whose error message names the session counts too; any other 400 is an ordinary failure.
 * @module
 */

/** True when a 400 body is a JSON-RPC error (or a batch holding one) whose message names the session. */
export function namesSession(text: string | undefined): boolean {
  if (text === undefined) return false;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return false;
  }
  const items = Array.isArray(value) ? value : [value];
  return items.some((item) => {
    if (typeof item !== 'object' || item === null) return false;
    const error = (item as { error?: unknown }).error;
    if (typeof error !== 'object' || error === null) return false;
    const message = (error as { message?: unknown }).message;
    return typeof message === 'string' && /\bsession\b/i.test(message);
  });
}
