/**
 * URL-mode elicitation (2025-11-25 `mode: "url"`, and the 2026-07-28 input request): the server
 * wants the person to visit a URL. CLAT shows the normalized URL and its host, asks consent
 * through the same elicitation gates and UserAsker as a form (a field-less confirmation), and
 * opens the URL only after an explicit accept. Without a frontend (headless) nothing is shown or
 * opened and the answer is `decline`.
 * @module
 */
import {
  errorMessage,
  type HostCaller,
  type HostServices,
  isJsonObject,
  isKernelError,
  KernelError,
  KernelErrorCode,
} from '@clat/kernel';
import { isMcpError, McpError, McpErrorCode } from './errors.js';
import type { HostHandlers } from './host-requests.js';
import { MCP_LIMITS } from './limits.js';
import type { McpElicitResult } from './mcp-elicitation.js';

/**
 * Opens a consented URL in the person's browser; resolves false when nothing opened. The host
 * says so to the person itself: only it knows where its output goes.
 */
export type UrlOpener = (url: string) => Promise<boolean>;

function unsupported(message: string): KernelError {
  return new KernelError(KernelErrorCode.ELICITATION_UNSUPPORTED, message);
}

/** The URL a URL-mode request names, checked: absolute http(s) only. */
export function elicitationUrlOf(params: Record<string, unknown>): URL {
  if (typeof params.url !== 'string' || params.url === '') {
    throw unsupported('URL-mode elicitation needs a non-empty string "url"');
  }
  let parsed: URL;
  try {
    parsed = new URL(params.url);
  } catch {
    throw unsupported(
      `URL-mode elicitation url ${JSON.stringify(params.url)} is not an absolute URL`,
    );
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw unsupported(
      `URL-mode elicitation url ${JSON.stringify(params.url)} uses ${parsed.protocol}; CLAT opens only http and https URLs`,
    );
  }
  return parsed;
}

/**
 * The consent text: the server's message on one line, then the normalized URL and its host on
 * lines of their own. The message is folded onto one line because it is the server's: with line
 * breaks of its own it could draw a `URL:` and `Host:` of another site above the real ones.
 */
export function urlConsentMessage(message: string, url: URL): string {
  const folded = message.replace(/\s*[\r\n\u2028\u2029\u0085\v\f]+\s*/g, ' ').trim();
  const intro = folded === '' ? 'The server asks you to open a web page.' : folded;
  return `${intro}\n\nURL: ${url.href}\nHost: ${url.host}\nAccept opens it in your browser; decline leaves it closed.`;
}

/**
 * Asks consent for one URL-mode request and opens the URL after an accept. The bridge's gates
 * apply (active run, forms-per-run budget, cancellation); a headless run declines.
 */
export async function serveUrlElicitation(
  params: Record<string, unknown>,
  host: HostServices,
  caller: HostCaller,
  signal: AbortSignal,
  openUrl: UrlOpener | undefined,
): Promise<McpElicitResult> {
  if (!isJsonObject(params)) throw unsupported('elicitation/create params must be an object');
  const url = elicitationUrlOf(params);
  const message = typeof params.message === 'string' ? params.message : '';
  let outcome: Awaited<ReturnType<HostServices['elicit']>>;
  try {
    outcome = await host.elicit(
      caller,
      { message: urlConsentMessage(message, url), fields: [] },
      signal,
    );
  } catch (error) {
    // Never open a URL nobody saw: a headless run declines instead of failing the call.
    if (isKernelError(error) && error.code === KernelErrorCode.ELICITATION_NO_FRONTEND) {
      return { action: 'decline' };
    }
    throw error;
  }
  if (outcome.tag === 'declined') return { action: 'decline' };
  if (outcome.tag === 'cancelled') return { action: 'cancel' };
  // The URL was on screen with the question, so a missing opener only costs the convenience;
  // the host's opener tells the person when nothing opened (the adapter has no terminal).
  await openUrl?.(url.href).catch(() => false);
  return { action: 'accept' };
}

/** JSON-RPC code of 2025-11-25 URLElicitationRequired (a call that needs a URL visited first). */
export const URL_ELICITATION_REQUIRED = -32042;

/**
 * The URL-mode elicitations a `-32042` error lists (`data.elicitations`), or undefined when the
 * error is no such refusal (or lists none, or more than one round may carry).
 */
export function urlElicitationsRequired(error: unknown): Record<string, unknown>[] | undefined {
  if (!isMcpError(error) || error.code !== McpErrorCode.MCP_REMOTE_ERROR) return undefined;
  if (error.rpcCode !== URL_ELICITATION_REQUIRED || !isJsonObject(error.rpcData)) return undefined;
  const listed: unknown = error.rpcData.elicitations;
  if (!Array.isArray(listed)) return undefined;
  const elicitations = (listed as unknown[]).filter((entry): entry is Record<string, unknown> =>
    isJsonObject(entry),
  );
  if (elicitations.length === 0 || elicitations.length > MCP_LIMITS.inputRequestsPerRound) {
    return undefined;
  }
  return elicitations;
}

/**
 * Serves the URLs of a `-32042` refusal: each goes through URL-mode consent (the connection's
 * `elicitation/create` handler, so the same gates); every one must be accepted, else the call
 * fails with MCP_INPUT_FAILED naming the URL. The caller then retries the call once.
 */
export async function visitRequiredUrls(options: {
  server: string;
  handlers: HostHandlers;
  urls: Record<string, unknown>[];
  what: string;
  cause: unknown;
  signal: AbortSignal | undefined;
}): Promise<void> {
  const { server, what, cause } = options;
  const handler = options.handlers.get('elicitation/create');
  if (handler === undefined) throw cause;
  const signal = options.signal ?? new AbortController().signal;
  for (const [index, params] of options.urls.entries()) {
    const url = typeof params.url === 'string' ? params.url : '(no url)';
    let answer: Record<string, unknown>;
    try {
      answer = await handler(
        { ...params, mode: 'url' },
        { id: `url-required-${index}`, method: 'elicitation/create', signal },
      );
    } catch (error) {
      throw new McpError(
        McpErrorCode.MCP_INPUT_FAILED,
        `MCP server ${JSON.stringify(server)} requires visiting ${url} before ${what}, which CLAT could not offer: ${errorMessage(error)}`,
        { server, cause: error },
      );
    }
    if (answer.action !== 'accept') {
      throw new McpError(
        McpErrorCode.MCP_INPUT_FAILED,
        `MCP server ${JSON.stringify(server)} requires visiting ${url} before ${what}, and it was not accepted`,
        { server, cause },
      );
    }
  }
}
