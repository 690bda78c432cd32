/**
 * Server requests that reach the host: `sampling/createMessage`, `elicitation/create` and the
 * `io.artec.clat/*` host services. The MCP side only translates; the kernel's HostServices
 * (PluginHostBridge) applies every gate. Failures map to JSON-RPC codes at this edge.
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
import { RpcError, type RpcSession, type ServerRequestHandler } from './rpc-session.js';
import { JsonRpcErrorCode } from './transport.js';

export interface HostHandlerOptions {
  server: string;
  host: HostServices;
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

/** Installs the host-backed server-request handlers on one connection. */
export function installHostHandlers(session: RpcSession, options: HostHandlerOptions): void {
  const { host, server } = options;
  const caller: HostCaller = { kind: 'mcp', id: server };
  const extending = { extendsDeadline: true };

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

  session.setRequestHandler('sampling/createMessage', sampling, extending);
  session.setRequestHandler('elicitation/create', elicitation, extending);
  session.setRequestHandler(HostServicesMethod.contextGet, contextGet, extending);
  session.setRequestHandler(HostServicesMethod.toolsCall, toolsCall, extending);
}
