/**
 * How client errors name things and carry the server's stderr: quoting, the redacted stderr
 * tail, and decorating a handshake error with it.
 * @module
 */
import { redactSecrets, stderrSummary } from '@clat/kernel';
import { isMcpError, McpError, McpErrorCode } from './errors.js';
import type { Transport } from './transport.js';

export function quoted(value: string): string {
  return JSON.stringify(value);
}

/**
 * `text` without its leading `MCP server "<server>" `: a reason quoted inside a message that
 * already names the server (`… closed the connection: exited with code 1`), so the name is said
 * once and not at every level of the chain.
 */
export function withoutServerName(server: string, text: string): string {
  const prefix = `MCP server ${quoted(server)} `;
  return text.startsWith(prefix) ? text.slice(prefix.length) : text;
}

/** The transport's redacted stderr tail; empty when the transport has none or fails to say. */
export function stderrTail(transport: Transport | undefined): string[] {
  if (transport === undefined) return [];
  try {
    return transport.diagnostics().tail.map((line) => redactSecrets(line));
  } catch {
    return [];
  }
}

/**
 * `; server stderr: …`, the {@link stderrSummary} of the tail in the order it was written, or ''
 * when there is nothing to add. An HTTP transport's tail holds its recent failures, not a
 * process's stderr, and its newest line is usually the very error being decorated: lines
 * `message` already says are left out, and the newest four are shown, newest first.
 */
export function stderrSuffix(transport: Transport | undefined, message = ''): string {
  const tail = stderrTail(transport).filter((line) => !message.includes(line));
  if (tail.length === 0) return '';
  const http = transport?.kind === 'http' || transport?.kind === 'sse';
  const shown = http ? tail.slice(-4).reverse() : stderrSummary(tail);
  if (shown.length === 0) return '';
  return `; ${http ? 'recent HTTP failures' : 'server stderr'}: ${shown.map((line) => redactSecrets(line)).join(' | ')}`;
}

/**
 * `; <hint>` when `error` is a handshake timeout and the transport knows what may make its server
 * slow to start (npx still installing the package), else ''.
 */
export function slowStartSuffix(transport: Transport | undefined, error: unknown): string {
  if (!isMcpError(error) || error.code !== McpErrorCode.MCP_TIMEOUT) return '';
  let hint: string | undefined;
  try {
    hint = transport?.diagnostics().slowStartHint;
  } catch {
    return '';
  }
  return hint === undefined ? '' : `; ${hint}`;
}

/** Appends the stderr tail to an MCP error (not to a cancellation, which the user caused). */
export function decorate(error: unknown, transport: Transport): unknown {
  if (!isMcpError(error) || error.code === McpErrorCode.MCP_CANCELLED) return error;
  const suffix = stderrSuffix(transport, error.message);
  if (suffix === '') return error;
  return new McpError(error.code, `${error.message}${suffix}`, {
    ...(error.server === undefined ? {} : { server: error.server }),
    stderrTail: stderrTail(transport),
    cause: error,
  });
}
