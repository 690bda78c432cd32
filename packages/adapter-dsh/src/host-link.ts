/**
 * The adapter's side of the host: which tools/call is running (an AsyncLocalStorage scope, so
 * a seam used inside `execute` finds its call), what that call's client declared, and the
 * server→client requests (sampling, elicitation, `io.artec.clat/*`) made on its behalf.
 * Requests are only ever sent during a tools/call and only for capabilities the client declared
 * for that request (modern `_meta`) or at initialize (legacy).
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  HOST_SERVICES_EXTENSION,
  HOST_SERVICES_VERSION,
  HostServicesMethod,
  isJsonObject,
  JsonRpcErrorCode,
} from '@clat/kernel';
import { DshAdapterError, DshErrorCode, type DshErrorCode as DshErrorCodeType } from './errors.js';
import { HostRequestError } from './stdio-wire.js';

/** What the client of one request said it can do. */
export interface ClientFeatures {
  sampling: boolean;
  elicitation: boolean;
  hostServices: boolean;
}

export const NO_CLIENT_FEATURES: ClientFeatures = {
  sampling: false,
  elicitation: false,
  hostServices: false,
};

/** Reads sampling/elicitation/host-services support from MCP client capabilities. */
export function clientFeaturesOf(capabilities: unknown): ClientFeatures {
  if (!isJsonObject(capabilities)) return NO_CLIENT_FEATURES;
  const experimental = isJsonObject(capabilities.experimental) ? capabilities.experimental : {};
  const host = experimental[HOST_SERVICES_EXTENSION];
  return {
    sampling: isJsonObject(capabilities.sampling),
    elicitation: isJsonObject(capabilities.elicitation),
    hostServices: isJsonObject(host) && host.version === HOST_SERVICES_VERSION,
  };
}

export interface HostRequester {
  request(
    method: string,
    params: Record<string, unknown>,
    options: { signal: AbortSignal },
  ): Promise<Record<string, unknown>>;
}

export interface CallScope {
  callId: string;
  toolName: string;
  signal: AbortSignal;
  features: ClientFeatures;
  requester: HostRequester;
}

/** A detached copy of CLAT's context snapshot as the adapter last saw it. */
export interface HostSnapshot {
  protocolVersion: string;
  project: { root: string };
  run: {
    sessionId: string | null;
    provider: string | null;
    model: string | null;
    permissionMode: string | null;
    messages: unknown[];
    [key: string]: unknown;
  } | null;
  hostTools: string[];
  [key: string]: unknown;
}

function parseSnapshot(value: unknown): HostSnapshot | undefined {
  if (!isJsonObject(value)) return undefined;
  const project = value.project;
  if (!isJsonObject(project) || typeof project.root !== 'string' || project.root === '')
    return undefined;
  if (typeof value.protocolVersion !== 'string') return undefined;
  const run = value.run;
  if (run !== null && run !== undefined && !isJsonObject(run)) return undefined;
  const snapshot = structuredClone(value) as unknown as HostSnapshot;
  snapshot.hostTools = Array.isArray(value.hostTools)
    ? value.hostTools.filter((name): name is string => typeof name === 'string')
    : [];
  if (isJsonObject(run)) {
    snapshot.run = {
      ...(structuredClone(run) as Record<string, unknown>),
      sessionId: typeof run.sessionId === 'string' ? run.sessionId : null,
      provider: typeof run.provider === 'string' ? run.provider : null,
      model: typeof run.model === 'string' ? run.model : null,
      permissionMode: typeof run.permissionMode === 'string' ? run.permissionMode : null,
      messages: Array.isArray(run.messages) ? structuredClone(run.messages) : [],
    };
  } else {
    snapshot.run = null;
  }
  return snapshot;
}

export class HostLink {
  readonly #scopes = new AsyncLocalStorage<CallScope>();
  #snapshot: HostSnapshot | null = null;
  readonly #listeners = new Set<(snapshot: HostSnapshot | null) => void>();

  /** Runs `fn` as the body of one tools/call. */
  runInCall<T>(scope: CallScope, fn: () => T): T {
    return this.#scopes.run(scope, fn);
  }

  /** The tools/call this code runs inside, if any. */
  currentCall(): CallScope | undefined {
    return this.#scopes.getStore();
  }

  /** The latest snapshot (pushed by `context/changed` or fetched by `context/get`), if any. */
  get snapshot(): HostSnapshot | null {
    return this.#snapshot;
  }

  onSnapshot(listener: (snapshot: HostSnapshot | null) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Handles `io.artec.clat/context/changed`; a malformed payload clears the mirror. */
  acceptPush(params: Record<string, unknown> | undefined): void {
    const context = params?.context;
    this.#setSnapshot(
      context === null || context === undefined ? null : (parseSnapshot(context) ?? null),
    );
  }

  /** The active call, or a typed error naming the seam and what is missing. */
  requireCall(
    seam: string,
    feature: keyof ClientFeatures | undefined,
    missing: DshErrorCodeType,
  ): CallScope {
    const scope = this.currentCall();
    if (scope === undefined) {
      throw new DshAdapterError(
        DshErrorCode.CLAT_HOST_UNAVAILABLE,
        `${seam} is only available while CLAT runs one of this plugin's tools (no tool call is active)`,
      );
    }
    if (feature !== undefined && !scope.features[feature]) {
      const what =
        feature === 'hostServices'
          ? `the ${HOST_SERVICES_EXTENSION} ${HOST_SERVICES_VERSION} extension`
          : feature;
      throw new DshAdapterError(
        missing,
        `${seam} needs ${what}, which the MCP client did not declare`,
      );
    }
    return scope;
  }

  /** Sends one server→client request for the active call and maps failures to typed errors. */
  async request(
    scope: CallScope,
    method: string,
    params: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const combined = signal === undefined ? scope.signal : AbortSignal.any([scope.signal, signal]);
    try {
      return await scope.requester.request(method, params, { signal: combined });
    } catch (error) {
      throw mapHostError(method, error);
    }
  }

  /** `io.artec.clat/context/get`; refreshes the mirror, and clears it when the refresh fails. */
  async fetchContext(seam: string): Promise<HostSnapshot> {
    const scope = this.requireCall(seam, 'hostServices', DshErrorCode.CLAT_HOST_UNAVAILABLE);
    let result: Record<string, unknown>;
    try {
      result = await this.request(scope, HostServicesMethod.contextGet, {});
    } catch (error) {
      this.#setSnapshot(null);
      throw error;
    }
    const snapshot = parseSnapshot(result);
    if (snapshot === undefined) {
      this.#setSnapshot(null);
      throw new DshAdapterError(
        DshErrorCode.BAD_HOST_RESPONSE,
        `${HostServicesMethod.contextGet} returned no project root`,
      );
    }
    this.#setSnapshot(snapshot);
    return structuredClone(snapshot);
  }

  /** `io.artec.clat/tools/call` → the tool's `output`. */
  async callHostTool(
    seam: string,
    name: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<unknown> {
    const scope = this.requireCall(seam, 'hostServices', DshErrorCode.CLAT_HOST_UNAVAILABLE);
    const result = await this.request(
      scope,
      HostServicesMethod.toolsCall,
      { name, arguments: args },
      signal,
    );
    if (!('output' in result)) {
      throw new DshAdapterError(
        DshErrorCode.BAD_HOST_RESPONSE,
        `${HostServicesMethod.toolsCall} ${name} returned no output`,
      );
    }
    return result.output;
  }

  #setSnapshot(snapshot: HostSnapshot | null): void {
    this.#snapshot = snapshot;
    for (const listener of this.#listeners) {
      try {
        listener(snapshot === null ? null : structuredClone(snapshot));
      } catch {
        // A listener's failure is the plugin's concern; the mirror stays consistent.
      }
    }
  }
}

/** Client answers and local aborts become the adapter's typed errors. */
export function mapHostError(method: string, error: unknown): DshAdapterError {
  if (error instanceof DshAdapterError) {
    if (error.code === DshErrorCode.HOST_CALL_ABORTED) {
      return new DshAdapterError(DshErrorCode.ABORTED, `${method} was cancelled`, { cause: error });
    }
    return error;
  }
  if (error instanceof HostRequestError) {
    const code =
      error.rpcCode === JsonRpcErrorCode.METHOD_NOT_FOUND
        ? DshErrorCode.CLAT_HOST_UNAVAILABLE
        : DshErrorCode.HOST_CALL_FAILED;
    return new DshAdapterError(code, `CLAT refused ${method}: ${error.message}`, {
      data: { rpcCode: error.rpcCode },
      cause: error,
    });
  }
  return new DshAdapterError(
    DshErrorCode.HOST_CALL_FAILED,
    `${method} failed: ${error instanceof Error ? error.message : String(error)}`,
    { cause: error },
  );
}
