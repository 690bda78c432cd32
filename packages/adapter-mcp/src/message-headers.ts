/**
 * The per-message protocol headers of a transport where every message is its own exchange
 * (Streamable HTTP). The client computes them from what it negotiated, so the transport only
 * applies what it is given and never reads a result.
 * @module
 */
import { isJsonObject } from '@clat/kernel';
import {
  encodeHeaderValue,
  type ParamHeader,
  paramHeaderValues,
  scanParamHeaders,
} from './param-headers.js';

/** Header names the client computes, lower case (HTTP names are case-insensitive). */
export const MCP_HEADER = {
  protocolVersion: 'mcp-protocol-version',
  method: 'mcp-method',
  name: 'mcp-name',
} as const;

/** Modern requests that name their target in `Mcp-Name`, and the param that holds it. */
const NAMED_METHODS: Readonly<Record<string, 'name' | 'uri'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

type Headers = Readonly<Record<string, string>>;

const NONE: Headers = Object.freeze({});

/**
 * One connection's headers. Legacy (before 2026-07-28): `MCP-Protocol-Version` once initialize
 * settled the version, on every message. Modern: `MCP-Protocol-Version` on every message, and on
 * requests `Mcp-Method`, `Mcp-Name` and the `Mcp-Param-*` mirrors of `x-mcp-header` arguments
 * declared in the client's own tools/list. Header objects are frozen and shared where they do not
 * depend on params, so most messages allocate nothing here.
 */
export class MessageHeaders {
  #modern = false;
  #version: string | undefined;
  /** Headers of notifications and responses (and of every legacy message). */
  #common: Headers = NONE;
  /** `{ headers: #common }`, the send options of messages that are not requests. */
  #commonOptions: { readonly headers: Headers } = Object.freeze({ headers: NONE });
  /** Modern requests without `Mcp-Name`: one frozen object per method. */
  readonly #byMethod = new Map<string, Headers>();
  /** `x-mcp-header` declarations per tool, from the latest tools/list. */
  readonly #declared = new Map<string, readonly ParamHeader[]>();

  /** True in the modern era: cancelling a request means ending its exchange (no notification). */
  get modern(): boolean {
    return this.#modern;
  }

  /** The version sent as `MCP-Protocol-Version`, once known. */
  get protocolVersion(): string | undefined {
    return this.#version;
  }

  /** Modern era at `version` (the probe and every later request of a modern connection). */
  useModern(version: string): void {
    this.#set(true, version);
  }

  /** Legacy era: no version header before initialize answered, then `version` on every message. */
  useLegacy(version: string | undefined): void {
    this.#set(false, version);
  }

  /** Headers of a notification or a response. */
  get common(): Headers {
    return this.#common;
  }

  /** Send options (`{ headers }`) of a notification or a response, shared and frozen. */
  get commonOptions(): { readonly headers: Headers } {
    return this.#commonOptions;
  }

  /** Headers of one request. */
  request(method: string, params: Record<string, unknown> | undefined): Headers {
    if (!this.#modern || this.#version === undefined) return this.#common;
    const key = NAMED_METHODS[method];
    const target = key === undefined ? undefined : params?.[key];
    if (typeof target !== 'string') {
      let shared = this.#byMethod.get(method);
      if (shared === undefined) {
        shared = Object.freeze({
          [MCP_HEADER.protocolVersion]: this.#version,
          [MCP_HEADER.method]: method,
        });
        this.#byMethod.set(method, shared);
      }
      return shared;
    }
    const out: Record<string, string> = {
      [MCP_HEADER.protocolVersion]: this.#version,
      [MCP_HEADER.method]: method,
      [MCP_HEADER.name]: encodeHeaderValue(target),
    };
    const declared = method === 'tools/call' ? this.#declared.get(target) : undefined;
    if (declared !== undefined) paramHeaderValues(declared, params?.arguments, out);
    return out;
  }

  /**
   * Learns the `x-mcp-header` declarations of a whole tools/list (replacing what an earlier list
   * taught) and returns the tools to keep: a tool whose declarations are invalid is dropped
   * (2026-07-28: a conforming HTTP client must not call it), reported through `onDropped`.
   */
  learnTools(
    tools: readonly unknown[],
    onDropped: (name: string, reason: string) => void,
  ): unknown[] {
    this.#declared.clear();
    const kept: unknown[] = [];
    for (const tool of tools) {
      const name = isJsonObject(tool) && typeof tool.name === 'string' ? tool.name : undefined;
      if (name === undefined) {
        kept.push(tool);
        continue;
      }
      const scan = scanParamHeaders((tool as Record<string, unknown>).inputSchema);
      if ('invalid' in scan) {
        onDropped(name, scan.invalid);
        continue;
      }
      if (scan.headers.length > 0) this.#declared.set(name, scan.headers);
      kept.push(tool);
    }
    return kept;
  }

  #set(modern: boolean, version: string | undefined): void {
    if (modern === this.#modern && version === this.#version) return;
    this.#modern = modern;
    this.#version = version;
    this.#byMethod.clear();
    this.#common =
      version === undefined ? NONE : Object.freeze({ [MCP_HEADER.protocolVersion]: version });
    this.#commonOptions = Object.freeze({ headers: this.#common });
  }
}
