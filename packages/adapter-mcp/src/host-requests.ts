/**
 * Server requests that reach the host: `sampling/createMessage`, `elicitation/create` (form and
 * URL mode), `roots/list` and the `io.artec.clat/*` host services. The MCP side only translates;
 * the kernel's HostServices (PluginHostBridge) applies every gate. Failures map to JSON-RPC
 * codes at this edge. The same handlers serve 2026-07-28 input requests (input-rounds.ts).
 * @module
 */
import {
  type ElicitationForm,
  type ElicitationOutcome,
  HOST_SERVICES_VERSION,
  type HostCaller,
  type HostServices,
  HostToolCallParamsSchema,
  isKernelError,
} from '@clat/kernel';
import { hostErrorToJsonRpc } from './host-error-rpc.js';
import { HOST_SERVICES_EXTENSION, HostServicesMethod } from './host-services-wire.js';
import { elicitationFromMcp } from './mcp-elicitation.js';
import { samplingRequestFromMcp, samplingResultToMcp } from './mcp-sampling.js';
import { serverAdvertisesHostServices } from './protocol.js';
import type { McpRoot } from './roots.js';
import { RpcError } from './rpc-error.js';
import type { RpcSession, ServerRequestHandler } from './rpc-session.js';
import { JsonRpcErrorCode } from './transport.js';
import { serveUrlElicitation, type UrlOpener } from './url-elicitation.js';

export interface HostHandlerOptions {
  server: string;
  /** Absent: no sampling, elicitation or host services are served (none were declared). */
  host?: HostServices | undefined;
  /** The roots `roots/list` answers; absent: roots were not declared. */
  roots?: readonly McpRoot[] | undefined;
  /** Opens a consented URL-mode elicitation URL; absent: the user opens it by hand. */
  openUrl?: UrlOpener | undefined;
  /** Counts the `roots/list` requests served (for `/mcp`). */
  onRootsServed?: (() => void) | undefined;
  /** The server's capabilities once negotiated (host-services methods need the echo). */
  serverCapabilities: () => Record<string, unknown>;
  /** Negotiated version ≥ 2025-06-18, or modern. */
  elicitationAllowed: () => boolean;
  /** A tools/call is pending on this connection (sampling is served only then). */
  toolCallActive: () => boolean;
}

/** PluginHostBridge accepts per-call elicitation rules as a fourth argument. */
type ElicitWithRules = (
  caller: HostCaller,
  form: ElicitationForm,
  signal: AbortSignal,
  options: { rules?: unknown },
) => Promise<ElicitationOutcome>;

/** Runs `work`, turning kernel failures into the JSON-RPC errors the host-error table defines. */
async function served<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isKernelError(error)) {
      const rpc = hostErrorToJsonRpc(error);
      throw new RpcError(rpc.code, rpc.message, rpc.data);
    }
    throw error;
  }
}

/** Server-request methods that are input requests in 2026-07-28 (`inputRequests`). */
export const INPUT_REQUEST_METHODS = [
  'elicitation/create',
  'sampling/createMessage',
  'roots/list',
] as const;

/** One handler per server-request method CLAT serves on this connection. */
export type HostHandlers = ReadonlyMap<string, ServerRequestHandler>;

/** The host-backed and roots handlers of one connection, by method. */
export function createHostHandlers(options: HostHandlerOptions): HostHandlers {
  const handlers = new Map<string, ServerRequestHandler>();
  const { host, server } = options;
  const roots = options.roots;
  if (roots !== undefined) {
    handlers.set('roots/list', async () => {
      options.onRootsServed?.();
      return { roots: roots.map((root) => ({ ...root })) };
    });
  }
  if (host === undefined) return handlers;
  const caller: HostCaller = { kind: 'mcp', id: server };

  const sampling: ServerRequestHandler = (params, ctx) =>
    served(async () => {
      if (!options.toolCallActive()) {
        throw new RpcError(
          JsonRpcErrorCode.SERVER_ERROR,
          'sampling is served only while CLAT waits for a tools/call on this connection',
        );
      }
      const { request } = samplingRequestFromMcp(params);
      const outcome = await host.createMessage(caller, request, ctx.signal);
      return samplingResultToMcp(outcome);
    });

  const elicitation: ServerRequestHandler = (params, ctx) =>
    served(async () => {
      if (!options.elicitationAllowed()) {
        throw new RpcError(
          JsonRpcErrorCode.METHOD_NOT_FOUND,
          'elicitation/create needs protocol 2025-06-18 or newer; this connection negotiated an older version',
        );
      }
      if (params.mode === 'url') {
        return {
          ...(await serveUrlElicitation(params, host, caller, ctx.signal, options.openUrl)),
        };
      }
      const translation = elicitationFromMcp(params);
      const elicit = host.elicit.bind(host) as ElicitWithRules;
      const outcome = await elicit(caller, translation.form, ctx.signal, {
        rules: translation.rules,
      });
      return translation.toMcpResult(outcome);
    });

  const requireHostServices = (method: string): void => {
    if (!serverAdvertisesHostServices(options.serverCapabilities())) {
      throw new RpcError(
        JsonRpcErrorCode.METHOD_NOT_FOUND,
        `${method} is a CLAT host service that was not negotiated: the server did not advertise ${HOST_SERVICES_EXTENSION} ${HOST_SERVICES_VERSION}`,
      );
    }
  };

  const contextGet: ServerRequestHandler = () =>
    served(async () => {
      requireHostServices(HostServicesMethod.contextGet);
      return { ...(await host.context(caller)) };
    });

  const toolsCall: ServerRequestHandler = (params, ctx) =>
    served(async () => {
      requireHostServices(HostServicesMethod.toolsCall);
      const parsed = HostToolCallParamsSchema.safeParse(params);
      if (!parsed.success) {
        throw new RpcError(
          JsonRpcErrorCode.INVALID_PARAMS,
          `${HostServicesMethod.toolsCall} needs {name: string, arguments?: object}`,
        );
      }
      const output = await host.callTool(
        caller,
        parsed.data.name,
        parsed.data.arguments ?? {},
        ctx.signal,
      );
      return { output };
    });

  handlers.set('sampling/createMessage', sampling);
  handlers.set('elicitation/create', elicitation);
  handlers.set(HostServicesMethod.contextGet, contextGet);
  handlers.set(HostServicesMethod.toolsCall, toolsCall);
  return handlers;
}

/**
 * Installs the handlers on one connection. Host work extends the connection's tools/call
 * deadlines; `roots/list` answers at once and does not.
 */
export function installHostHandlers(session: RpcSession, handlers: HostHandlers): void {
  for (const [method, handler] of handlers) {
    session.setRequestHandler(method, handler, { extendsDeadline: method !== 'roots/list' });
  }
}
