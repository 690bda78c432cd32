/**
 * The TransportFactory of one configured stdio server.
 * @module
 */
import type { TransportFactory } from '@clat/adapter-mcp';
import type { PrestartedServer } from './prestart.js';
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
  #claim: (() => PrestartedServer | undefined) | undefined;

  /** `claim` hands over this server's prestarted process, taken by the first open() only. */
  constructor(options: StdioTransportOptions, claim?: () => PrestartedServer | undefined) {
    this.#options = options;
    this.#claim = claim;
  }

  /** Pids of every process this factory spawned, oldest first. */
  get spawnedPids(): readonly number[] {
    return this.#pids;
  }

  open(): StdioTransport {
    const claim = this.#claim;
    this.#claim = undefined;
    return new StdioTransport({
      ...this.#options,
      prestarted: claim?.(),
      onSpawn: (pid) => {
        this.#pids.push(pid);
        this.#options.onSpawn?.(pid);
      },
    });
  }
}
