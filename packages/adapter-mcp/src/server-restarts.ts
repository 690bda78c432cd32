/**
 * Restarts of a mounted server whose connection closed (a stdio server that crashed, an HTTP
 * session that ended for good). A restart happens on the next call of one of its tools, never at
 * once: a server nobody calls is not started again, and a call in flight when it closed is not
 * retried, since it may have had its effect. Calls that arrive while one restart runs share it,
 * and a server gets at most `MCP_LIMITS.serverRestarts` per mount, so one that crashes on every
 * start does not loop.
 * @module
 */
import { errorMessage } from '@clat/kernel';
import type { McpClient } from './client.js';
import { McpError, McpErrorCode } from './errors.js';
import { MCP_LIMITS } from './limits.js';

export class ServerRestarts {
  readonly #name: string;
  readonly #connect: () => Promise<McpClient>;
  #count = 0;
  #pending: Promise<McpClient> | undefined;

  /** `connect` opens, lists and installs a new connection; it runs once per restart. */
  /** What messages call the program to restart (the host's `hostName`). */
  readonly #hostName: string;

  constructor(name: string, connect: () => Promise<McpClient>, hostName = 'CLAT') {
    this.#name = name;
    this.#connect = connect;
    this.#hostName = hostName;
  }

  /** Restarts made so far. */
  get count(): number {
    return this.#count;
  }

  /**
   * The new connection: the restart in progress, or a new one. `closed` is why the last
   * connection ended; it is the error once no restart is left or the restart failed.
   */
  next(closed: McpError): Promise<McpClient> {
    if (this.#pending !== undefined) return this.#pending;
    const server = JSON.stringify(this.#name);
    if (this.#count >= MCP_LIMITS.serverRestarts) {
      return Promise.reject(
        new McpError(
          McpErrorCode.MCP_CONNECTION_CLOSED,
          `${closed.message}; ${this.#hostName} restarted MCP server ${server} ${this.#count} times already and does not start it again until ${this.#hostName} restarts`,
          { server: this.#name, stderrTail: [...closed.stderrTail] },
        ),
      );
    }
    this.#count++;
    const pending = this.#connect().catch((error: unknown) => {
      throw new McpError(
        McpErrorCode.MCP_CONNECTION_CLOSED,
        `${closed.message}; restarting it failed: ${errorMessage(error)}`,
        { server: this.#name, cause: error },
      );
    });
    this.#pending = pending;
    const done = (): void => {
      this.#pending = undefined;
    };
    pending.then(done, done);
    return pending;
  }
}
