/**
 * The last step of a client request: an `input_required` answer runs its input rounds (for the
 * methods that may return one), then the answer's `resultType` is checked for the era.
 * @module
 */
import type { HostHandlers } from './host-requests.js';
import { INPUT_ROUND_METHODS, runInputRounds } from './input-rounds.js';
import type { McpEra } from './protocol.js';
import { checkResultType } from './result-type.js';
import type { RequestOptions, RpcSession, SizedResult } from './rpc-session.js';

/** What settling needs of a connection; a client builds one per connection, not per request. */
export interface SettleConnection {
  readonly server: string;
  readonly era: McpEra;
  readonly session: RpcSession;
  readonly handlers: HostHandlers;
  /** True when requests carry the modern `_meta` envelope (input-round retries carry it too). */
  modernMeta(): boolean;
  onDiagnostic(message: string): void;
}

/**
 * Checks a response's resultType; an `input_required` one runs its input rounds first. A plain
 * complete answer comes back as is (no promise), so the common request costs no extra layer.
 */
export function settleResponse(
  conn: SettleConnection,
  method: string,
  params: Record<string, unknown>,
  options: RequestOptions,
  sized: SizedResult,
  startedAt: number,
): SizedResult | Promise<SizedResult> {
  const what = options.what ?? method;
  if (sized.result.resultType === 'input_required' && INPUT_ROUND_METHODS.has(method)) {
    return runInputRounds({
      server: conn.server,
      what,
      params,
      first: sized.result,
      startedAt,
      handlers: conn.handlers,
      send: (retry, signal, backstopMs) => {
        if (conn.modernMeta()) retry._meta = params._meta;
        return conn.session.request(method, retry, { timeoutMs: backstopMs, signal, what });
      },
      timeoutMs: options.timeoutMs,
      extension: options.extension,
      hostRequestsPending: () => conn.session.pendingHostRequests,
      signal: options.signal,
      onDiagnostic: conn.onDiagnostic,
    }).then((result) => {
      checkResultType(conn.server, conn.era, what, result, conn.onDiagnostic);
      return { result, bytes: undefined };
    });
  }
  checkResultType(conn.server, conn.era, what, sized.result, conn.onDiagnostic);
  return sized;
}
