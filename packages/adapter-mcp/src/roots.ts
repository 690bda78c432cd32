/**
 * MCP roots: the trusted project root offered to servers as a `file://` URI (`roots/list`,
 * legacy server request and 2026-07-28 input request alike).
 *
 * The list never changes while a connection lives: servers are mounted inside one project scope
 * and closed with it, so a different project means new connections that get the new root in
 * their first `roots/list`. `notifications/roots/list_changed` therefore has nothing to announce.
 * @module
 */

/**
 * How long a tool call waits after CLAT answered `roots/list`, so the server has applied the
 * roots before the call arrives (see `McpClient.callTool`). Not a spec number: a settle time.
 */
export const ROOTS_SETTLE_MS = 100;

/** One root as MCP sends it. */
export interface McpRoot {
  uri: string;
  name?: string;
}

/** Characters a file URI path keeps as they are (RFC 3986 pchar without percent-encoding). */
const KEEP = /[A-Za-z0-9\-._~!$&'()*+,;=:@]/;

function encodeSegment(segment: string): string {
  let out = '';
  for (const char of segment) {
    if (KEEP.test(char)) {
      out += char;
      continue;
    }
    for (const byte of new TextEncoder().encode(char)) {
      out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    }
  }
  return out;
}

/**
 * The `file://` URI of an absolute path, POSIX (`/work/p`) or Windows (`C:\work\p`). Runtime-
 * neutral on purpose (this package has no `node:url`); percent-encodes like `pathToFileURL`.
 */
export function fileUri(path: string): string {
  let normalized = path.replace(/\\/g, '/');
  if (/^[A-Za-z]:\//.test(normalized)) normalized = `/${normalized}`;
  if (!normalized.startsWith('/')) {
    throw new TypeError(`project root ${JSON.stringify(path)} is not an absolute path`);
  }
  if (normalized.length > 1) normalized = normalized.replace(/\/+$/, '');
  return `file://${normalized.split('/').map(encodeSegment).join('/')}`;
}

/** The roots CLAT offers: the trusted project root, named after its last path segment. */
export function projectRoots(projectRoot: string): McpRoot[] {
  const uri = fileUri(projectRoot);
  const name = projectRoot
    .replace(/[\\/]+$/, '')
    .split(/[\\/]/)
    .pop();
  return [name === undefined || name === '' ? { uri } : { uri, name }];
}
