/**
 * The TransportFactory of one configured stdio server.
 * @module
 */
import type { TransportFactory } from '@clat/adapter-mcp';
import type { StdioTransportOptions } from './stdio-options.js';
import { StdioTransport } from './stdio-transport.js';

/**
 * Opens one {@link StdioTransport} per call: `probeIsolation: 'fresh'`, so a failed modern probe
 * costs a disposable process and the legacy handshake gets a new one.
 */
export class StdioTransportFactory implements TransportFactory {
  readonly kind = 'stdio';
  readonly probeIsolation = 'fresh';
  readonly #options: StdioTransportOptions;
  readonly #pids: number[] = [];

  constructor(options: StdioTransportOptions) {
    this.#options = options;
  }

  /** Pids of every process this factory spawned, oldest first. */
  get spawnedPids(): readonly number[] {
    return this.#pids;
  }

  open(): StdioTransport {
    return new StdioTransport({
      ...this.#options,
      onSpawn: (pid) => {
        this.#pids.push(pid);
        this.#options.onSpawn?.(pid);
      },
    });
  }
}
