/**
 * Progress of tools/call requests: one fresh token per call (sent as `_meta.progressToken`), and
 * the connection's progress notifications routed to the call that owns the token. Reports for a
 * token no call owns any more (finished, cancelled) are dropped: servers keep sending them.
 * @module
 */
import type { RpcSession } from './rpc-session.js';

/** One progress notification, as the server sent it (the message is untrusted text). */
export interface McpProgress {
  progress: number;
  total?: number;
  message?: string;
}

export type McpProgressListener = (progress: McpProgress) => void;

export class ProgressRouter {
  readonly #listeners = new Map<string, McpProgressListener>();
  #next = 1;

  /** Routes the session's progress notifications to the open tokens. */
  install(session: RpcSession): void {
    session.setNotificationHandler('notifications/progress', (params) => this.#route(params));
  }

  /**
   * A token unique on this connection until {@link release}. A plain string, not a lease object:
   * every tools/call opens one.
   */
  open(listener: McpProgressListener | undefined): string {
    const token = `clat-${this.#next++}`;
    // Nobody listens: the token still goes out (servers expect one), its reports are dropped.
    if (listener !== undefined) this.#listeners.set(token, listener);
    return token;
  }

  /** Stops the reports of `token`; harmless for a token nobody listened to. */
  release(token: string): void {
    this.#listeners.delete(token);
  }

  #route(params: Record<string, unknown>): void {
    const token = params.progressToken;
    if (typeof token !== 'string' && typeof token !== 'number') return;
    const listener = this.#listeners.get(String(token));
    if (listener === undefined) return;
    const progress = params.progress;
    if (typeof progress !== 'number' || !Number.isFinite(progress)) return;
    const report: McpProgress = { progress };
    if (typeof params.total === 'number' && Number.isFinite(params.total)) {
      report.total = params.total;
    }
    if (typeof params.message === 'string') report.message = params.message;
    listener(report);
  }
}
