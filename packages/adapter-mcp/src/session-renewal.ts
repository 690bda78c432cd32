/**
 * A legacy Streamable HTTP session outlives the server forgetting it. mcp-protocol.md §4.7: a 404
 * (or a 400 naming the session) to a request that carried the session id means the server no
 * longer knows it, and the client starts a new session with `initialize`. Servers do forget:
 * they restart, expire idle sessions, or sit behind a load balancer that lost its affinity.
 * @module
 */
import { abortable, errorMessage, isKernelError, KernelErrorCode } from '@clat/kernel';
import { quoted } from './client-diagnostics.js';
import { McpError, McpErrorCode } from './errors.js';
import { isSessionExpired } from './transport.js';

export interface SessionRenewalOptions {
  server: string;
  /** Runs the legacy handshake again on the same transport (which dropped the old session). */
  handshake(): Promise<void>;
  /** True once the connection is closing: its requests fail as closed, not as expired. */
  closed(): boolean;
  onDiagnostic(message: string): void;
}

/**
 * Sends requests so that one meeting an expired session is sent once more in a new session. Every
 * request that met the same expiry waits for ONE renewal; a request sent before an earlier
 * renewal finished does not start another. When the new `initialize` fails, the requests waiting
 * for it fail with the reason, and the next request tries again, so a server that comes back
 * after a restart is used again without restarting CLAT.
 */
export class SessionRenewal {
  readonly #options: SessionRenewalOptions;
  /** Counts completed renewals: a request sent in an older session needs no new one. */
  #generation = 0;
  /** True while the transport holds no session (an expiry no renewal has answered yet). */
  #lost = false;
  #renewing: Promise<void> | undefined;

  constructor(options: SessionRenewalOptions) {
    this.#options = options;
  }

  /**
   * Runs `attempt`, and once more in a newer session if it met an expired one. A request sent in a
   * session started after it was issued (it waited for a renewal) gets no further try: a server
   * that forgets every session fails each request after one `initialize`, not two.
   */
  async send<T>(
    attempt: () => Promise<T>,
    signal: AbortSignal | undefined,
    what: string,
  ): Promise<T> {
    let fresh = false;
    for (;;) {
      if (this.#lost || this.#renewing !== undefined) {
        await this.#renewed(signal, what);
        fresh = true;
      }
      const generation = this.#generation;
      try {
        return await attempt();
      } catch (error) {
        if (!isSessionExpired(error) || this.#options.closed()) throw error;
        // Only an expiry of the current session means the transport is now without one.
        if (generation === this.#generation) this.#lost = true;
        if (fresh) throw error;
        fresh = true;
      }
    }
  }

  #renewed(signal: AbortSignal | undefined, what: string): Promise<void> {
    this.#renewing ??= this.#renew().finally(() => {
      this.#renewing = undefined;
    });
    // The handshake is shared and never cancelled (the spec forbids cancelling initialize); a
    // caller who gives up stops waiting for it, with the client's own cancellation error.
    return abortable(this.#renewing, signal, what).catch((error: unknown) => {
      if (isKernelError(error) && error.code === KernelErrorCode.CANCELLED) {
        throw new McpError(McpErrorCode.MCP_CANCELLED, `${what} was cancelled`, {
          server: this.#options.server,
          cause: signal?.reason,
        });
      }
      throw error;
    });
  }

  async #renew(): Promise<void> {
    const { server, onDiagnostic } = this.#options;
    onDiagnostic(
      `MCP server ${quoted(server)} no longer knows its session; starting a new one with initialize`,
    );
    try {
      await this.#options.handshake();
    } catch (error) {
      if (this.#options.closed()) throw error;
      throw new McpError(
        McpErrorCode.MCP_HANDSHAKE_FAILED,
        `MCP server ${quoted(server)} no longer knows its session, and a new initialize failed: ${errorMessage(error)}`,
        { server, cause: error },
      );
    }
    this.#generation++;
    this.#lost = false;
    onDiagnostic(`MCP server ${quoted(server)} started a new session`);
  }
}
