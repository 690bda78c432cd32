/**
 * What every connection of one gateway process shares: the composed host, the mode, the one
 * kernel run all calls belong to, the router of plugin requests to calling clients and the
 * suspended calls of 2026-07-28 input rounds.
 * @module
 */
import { type HostRun, LIMITS, type PermissionMode } from '@clat/kernel';
import { CallRouter } from './call-router.js';
import type { GatewayHost } from './compose.js';
import { InputRounds } from './input-rounds.js';

export class GatewayRuntime {
  readonly gateway: GatewayHost;
  readonly mode: PermissionMode;
  /** Aborted when the gateway shuts down: every running call is cancelled. */
  readonly shutdown: AbortSignal;
  readonly router = new CallRouter();
  readonly rounds: InputRounds;
  #run: Promise<HostRun> | undefined;
  #surface: Promise<void> | undefined;
  #nextCall = 1;
  /** The surface as last listed; undefined until the first listing. */
  #listed: string | undefined;
  readonly #surfaceListeners = new Set<() => void>();

  /** How long the first listing and the first call wait for the initial surface. */
  readonly waitMs: number;

  constructor(
    gateway: GatewayHost,
    mode: PermissionMode,
    shutdown: AbortSignal,
    waitMs: number = LIMITS.initialSurfaceWaitMs,
  ) {
    this.gateway = gateway;
    this.mode = mode;
    this.shutdown = shutdown;
    this.waitMs = waitMs;
    this.rounds = new InputRounds(shutdown);
    // A frozen registry rejects additions, so nothing the freeze refused is ever announced.
    const stop = gateway.host.mount.onChange(() => {
      if (this.#listed === undefined) return;
      const now = this.#surfaceKey();
      if (now === this.#listed) return;
      this.#listed = now;
      for (const listener of this.#surfaceListeners) listener();
    });
    shutdown.addEventListener('abort', stop, { once: true });
  }

  /** Names and effects of the surface, in order: a change means `tools/list_changed`. */
  #surfaceKey(): string {
    return this.gateway.host.registry
      .list()
      .map((tool) => `${tool.name}\u0000${tool.effect}`)
      .join('\u0001');
  }

  /** Records that a client was just given the current surface. */
  listed(): void {
    this.#listed = this.#surfaceKey();
  }

  /**
   * Calls `listener` when the surface changed after a client listed it (a plugin that finished
   * mounting after the first listing, before the first call froze the registries).
   */
  onSurfaceChanged(listener: () => void): () => void {
    this.#surfaceListeners.add(listener);
    return () => {
      this.#surfaceListeners.delete(listener);
    };
  }

  /**
   * The gateway's one run, opened by the first call like `clat`'s first run: it waits (bounded)
   * for the initial surface and freezes the registries. Plugin sampling, elicitation forms and
   * approvals of plugin host calls go to the calling client through the router.
   */
  run(): Promise<HostRun> {
    this.#run ??= this.gateway.host.beginRun({
      mode: this.mode,
      initialWaitMs: this.waitMs,
      approver: this.router.approver,
      asker: this.router.asker,
      model: this.router.model,
    });
    return this.#run;
  }

  /** The first listing waits (bounded) for the initial surface, without freezing it. */
  surface(): Promise<void> {
    this.#surface ??= this.gateway.host.mount.waitSettled(this.waitMs).then(() => undefined);
    return this.#surface;
  }

  /** A call id unique across connections and rounds (run events and progress key on it). */
  nextCallId(): string {
    return `gateway-${this.#nextCall++}`;
  }

  /** Ends the run (if one was opened) and closes the host. */
  async close(): Promise<void> {
    const run = this.#run;
    if (run !== undefined) await (await run.catch(() => undefined))?.end();
    await this.gateway.close();
  }
}
