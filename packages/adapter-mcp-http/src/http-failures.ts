/**
 * The errors of one HTTP transport and the tail of recent failures it reports as diagnostics.
 * Every message names the endpoint origin only, and server text passes the redactor first.
 * @module
 */
import type { JsonRpcMessage, JsonRpcRequest } from '@clat/adapter-mcp';
import { errorMessage, LIMITS, type Redactor, shownUrl } from '@clat/kernel';
import { BodyTooLarge } from './body-reader.js';
import { HttpTransportError, type HttpTransportErrorCode, isHttpTransportError } from './errors.js';

const FAILURES_KEPT = LIMITS.stderrTailLines;
const BODY_SNIPPET_CHARS = 200;

/** Short name of a message for errors: `tools/call (id 3)`, `response to 7`. */
export function describe(message: JsonRpcMessage): string {
  if ('method' in message) {
    return 'id' in message && message.id !== undefined
      ? `${message.method} (id ${JSON.stringify(message.id)})`
      : message.method;
  }
  return `the response to id ${JSON.stringify(message.id)}`;
}

/**
 * The text of an error body: an HTML page (a framework's `Cannot POST /mcp`, a proxy's 404) without
 * its markup, so the snippet shows what the page says; anything else as it is.
 */
function textOf(body: string): string {
  if (!/^\s*<(!doctype|html|head|body|\?xml)/i.test(body)) return body;
  return body
    .replace(/<(script|style|head)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

function whatOf(message: JsonRpcMessage | string): string {
  return typeof message === 'string' ? message : describe(message);
}

/** A path that looks like a sign-in page: single sign-on, a login form, an authorize endpoint. */
const SIGN_IN_PATH =
  /(?:^|[/._-])(?:login|log-in|signin|sign-in|sso|saml|authorize|oauth2?|auth)(?:$|[/._-])/i;

/**
 * What to do about a redirect to `target`: a sign-in page is for a browser (a proxy or single
 * sign-on in front of the server), which no MCP client follows, so "update the URL" would only
 * point mcp.json at the sign-in page.
 */
function redirectAdvice(target: URL): string {
  if (SIGN_IN_PATH.test(target.pathname)) {
    return 'that looks like a sign-in page for a browser (single sign-on in front of the server), which an MCP client cannot use: ask for the server\'s MCP URL that takes a token or an OAuth login, and give the token with --header "Authorization: Bearer <token>"';
  }
  return `if ${shownUrl(target.href)} is the server's MCP endpoint, update the URL in mcp.json`;
}

export function isRedirect(status: number): boolean {
  return status >= 300 && status < 400;
}

/** The network error codes a person meets, in words; the code follows for a search. */
const NETWORK_WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'nothing is listening there',
  ECONNRESET: 'the connection was reset',
  UND_ERR_SOCKET: 'the server closed the connection',
  UND_ERR_CLOSED: 'the server closed the connection',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved now (DNS)',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'the server sent no response in time',
  UND_ERR_BODY_TIMEOUT: 'the server stopped sending its response',
  CERT_HAS_EXPIRED: "the server's TLS certificate has expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "the server's TLS certificate is self-signed",
  SELF_SIGNED_CERT_IN_CHAIN: "the server's TLS certificate chain is self-signed",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's TLS certificate cannot be verified",
  ERR_TLS_CERT_ALTNAME_INVALID: "the server's TLS certificate is for another host name",
};

/**
 * The error code of a failed fetch, in words when it is a common one (`the server closed the
 * connection (UND_ERR_SOCKET)`), else the innermost cause's text: undici's own `fetch failed`
 * says nothing, its cause (`bad port`) does.
 */
export function networkReason(error: unknown): string {
  let current: unknown = error;
  let innermost: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') {
      const words = Object.hasOwn(NETWORK_WORDS, code) ? NETWORK_WORDS[code] : undefined;
      return words === undefined ? code : `${words} (${code})`;
    }
    if (current.name === 'TimeoutError') return 'timed out';
    innermost = current;
    current = current.cause;
  }
  const outer = errorMessage(error);
  const inner = errorMessage(innermost);
  const text = inner === outer ? outer : `${outer}: ${inner}`;
  return text.slice(0, BODY_SNIPPET_CHARS);
}

/** Which credentials a transport sends: configured headers, a login (its `auth`), or both. */
export function credentialsOf(options: {
  headers?: Readonly<Record<string, string>> | undefined;
  auth?: unknown;
}): { headers: boolean; login: boolean } {
  return {
    headers: Object.keys(options.headers ?? {}).length > 0,
    login: options.auth !== undefined,
  };
}

/**
 * The hint of a refused request, naming only what was sent: blaming "the configured headers" of
 * an entry that has none, while its OAuth login was what the server refused, sent people to the
 * wrong place.
 */
function credentialHint(credentials: { headers: boolean; login: boolean }): string {
  if (credentials.headers && credentials.login)
    return ' (check the configured headers and the login)';
  if (credentials.headers) return ' (check the configured headers)';
  if (credentials.login)
    return ' (the server refused the token of its login: it may lack access, or log in again)';
  return ' (no credentials are configured for it)';
}

/** Builds the transport's errors and keeps the newest failures for `diagnostics()`. */
export class HttpFailures {
  readonly #url: URL;
  readonly #origin: string;
  readonly #redactor: Redactor;
  /** True once the transport itself closed (its own abort, not a caller's cancel). */
  readonly #closedByTransport: () => boolean;
  readonly #tail: string[] = [];

  /** What a 401 or 403 points at: the credentials this transport sends (see {@link credentialHint}). */
  readonly #credentialHint: string;

  constructor(
    url: URL,
    redactor: Redactor,
    closedByTransport: () => boolean,
    credentials: { headers: boolean; login: boolean },
  ) {
    this.#url = url;
    this.#origin = url.origin;
    this.#redactor = redactor;
    this.#closedByTransport = closedByTransport;
    this.#credentialHint = credentialHint(credentials);
  }

  /** The endpoint origin the errors name. */
  get origin(): string {
    return this.#origin;
  }

  /**
   * A problem that does not end the exchange (an unparsable event): redacted, recorded, and
   * returned as the error a transport hands to its `onerror`.
   */
  problem(text: string): HttpTransportError {
    const clean = this.#redactor.redact(text);
    this.record(clean);
    return new HttpTransportError('HTTP_INVALID_BODY', this.#origin, clean);
  }

  /** The newest failures, oldest first. */
  tail(): string[] {
    return [...this.#tail];
  }

  error(code: HttpTransportErrorCode, text: string, status?: number): HttpTransportError {
    return new HttpTransportError(code, this.#origin, text, { status });
  }

  record(text: string): void {
    this.#tail.push(text);
    if (this.#tail.length > FAILURES_KEPT) this.#tail.shift();
  }

  /**
   * Redirects are never followed: fetch would carry the configured headers (all but
   * Authorization) to wherever the server points, so the user updates the URL instead.
   */
  /** `message`: the message the exchange carried, or a description of an exchange of its own. */
  redirect(response: Response, message: JsonRpcMessage | string): HttpTransportError {
    let target = '(no location)';
    let advice = 'update the URL in mcp.json';
    const location = response.headers.get('location');
    if (location !== null) {
      try {
        const url = new URL(location, this.#url);
        // Origin and path only (shownUrl): a redirect's query may carry a token.
        target = shownUrl(url.href);
        advice = redirectAdvice(url);
      } catch {
        target = '(an invalid location)';
      }
    }
    return this.error(
      'HTTP_STATUS',
      `MCP server at ${this.#origin} redirected ${whatOf(message)} (HTTP ${response.status}) to ${target}; redirects are not followed so configured headers stay with the configured URL: ${advice}`,
      response.status,
    );
  }

  status(
    status: number,
    message: JsonRpcMessage | string,
    body: string | undefined,
  ): HttpTransportError {
    const hint = status === 401 || status === 403 ? this.#credentialHint : '';
    const clean =
      body === undefined ? '' : this.#redactor.redact(textOf(body)).replace(/\s+/g, ' ').trim();
    const snippet =
      clean === ''
        ? ''
        : `: ${clean.length > BODY_SNIPPET_CHARS ? `${clean.slice(0, BODY_SNIPPET_CHARS)}…` : clean}`;
    return this.error(
      'HTTP_STATUS',
      `MCP server at ${this.#origin} answered ${whatOf(message)} with HTTP ${status}${hint}${snippet}`,
      status,
    );
  }

  body(
    error: unknown,
    request: JsonRpcRequest,
    controller: AbortController,
    status: number,
  ): HttpTransportError {
    if (error instanceof BodyTooLarge) {
      controller.abort();
      return this.error(
        'HTTP_BODY_TOO_LARGE',
        `MCP server at ${this.#origin} sent more than ${error.limit} bytes in one message answering ${describe(request)}; the request was aborted`,
        status,
      );
    }
    return this.fetch(error, request, controller);
  }

  fetch(error: unknown, message: JsonRpcMessage, controller: AbortController): HttpTransportError {
    if (isHttpTransportError(error)) return error;
    if (this.#closedByTransport()) {
      return this.error(
        'HTTP_CLOSED',
        `transport to ${this.#origin} closed during ${describe(message)}`,
      );
    }
    if (controller.signal.aborted) {
      return this.error('HTTP_CANCELLED', `${describe(message)} to ${this.#origin} was cancelled`);
    }
    const reason = networkReason(error);
    return this.error(
      'HTTP_NETWORK',
      `connection to MCP server at ${this.#origin} failed during ${describe(message)}: ${this.#redactor.redact(reason)}${this.#plainHttpHint(reason)}`,
    );
  }

  /**
   * A TLS handshake answered with plain HTTP (`ERR_SSL_WRONG_VERSION_NUMBER`): the URL says https
   * to a server that speaks http, common for local servers. Said in words, since the code is not.
   */
  #plainHttpHint(reason: string): string {
    if (
      this.#url.protocol !== 'https:' ||
      !/WRONG_VERSION_NUMBER|wrong version number/i.test(reason)
    )
      return '';
    const plain = new URL(this.#url.href);
    plain.protocol = 'http:';
    return `; the server answered the TLS handshake with plain HTTP, so it likely speaks http: use ${shownUrl(plain.href)} in the URL`;
  }
}
