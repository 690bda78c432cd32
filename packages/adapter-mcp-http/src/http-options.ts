/**
 * The options of one HTTP transport and their validation (URL scheme, no embedded credentials,
 * header names and values), with messages that name the origin only.
 * @module
 */
import { headerProblem } from '@clat/adapter-mcp';
import { HttpTransportError } from './errors.js';
import type { HttpAuth } from './http-auth.js';

export interface HttpTransportOptions {
  /** The server endpoint (http or https). Only its origin ever appears in errors or status. */
  url: string;
  /** Caller-provided headers (e.g. Authorization). Kept in memory only, sent on every request. */
  headers?: Record<string, string> | undefined;
  /** Cap of one response body or SSE event, and of one outbound message. */
  maxMessageBytes?: number | undefined;
  /** Bound of the session DELETE sent on close. */
  closeTimeoutMs?: number | undefined;
  /** Replaces the global fetch (tests inject faults through real servers, not this). */
  fetch?: typeof fetch | undefined;
  /** Supplies `Authorization` per request and handles 401/403 (e.g. an OAuthClient). */
  auth?: HttpAuth | undefined;
}

/** The parsed URL and its origin, or an error naming the origin and the problem. */
export function validateHttpOptions(options: HttpTransportOptions): { url: URL; origin: string } {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new HttpTransportError(
      'HTTP_CONFIG_INVALID',
      '(invalid URL)',
      'MCP server URL is not an absolute URL',
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new HttpTransportError(
      'HTTP_CONFIG_INVALID',
      url.origin,
      `MCP server URL must use http or https, not ${url.protocol.replace(':', '')}`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new HttpTransportError(
      'HTTP_CONFIG_INVALID',
      url.origin,
      `MCP server URL for ${url.origin} must not embed credentials; put them in "headers"`,
    );
  }
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    const problem = headerProblem(name, value);
    if (problem !== undefined) {
      throw new HttpTransportError(
        'HTTP_CONFIG_INVALID',
        url.origin,
        `${problem} (MCP server at ${url.origin})`,
      );
    }
  }
  return { url, origin: url.origin };
}
