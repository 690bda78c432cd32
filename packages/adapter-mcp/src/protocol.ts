/**
 * MCP wire constants for both eras: versions, `_meta` keys, client capabilities and timeouts.
 * @module
 */
import { HOST_SERVICES_VERSION, isJsonObject, LIMITS } from '@clat/kernel';
import { HOST_SERVICES_CAPABILITY, HOST_SERVICES_EXTENSION } from './host-services-wire.js';
import { MCP_LIMITS } from './limits.js';

/** The stateless modern revision CLAT speaks. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** Legacy revisions accepted from an initialize reply, oldest first. */
export const LEGACY_PROTOCOL_VERSIONS = [
  '2024-11-05',
  '2025-03-26',
  '2025-06-18',
  '2025-11-25',
] as const;

/** The version CLAT offers in initialize. */
export const LATEST_LEGACY_PROTOCOL_VERSION = '2025-11-25';

/** First legacy revision with elicitation/create. */
export const ELICITATION_MIN_LEGACY_VERSION = '2025-06-18';

export type McpEra = 'modern' | 'legacy';

export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
} as const;

/** JSON-RPC codes that prove a modern server (spec mcp-protocol.md §1 and §3). */
export const MODERN_ERROR_CODES: ReadonlySet<number> = new Set([-32020, -32021, -32022]);

export const CLIENT_NAME = 'clat';

export interface McpClientInfo {
  name: string;
  version: string;
}

/**
 * Capabilities CLAT declares. Sampling, elicitation (form and URL mode) and the host-services
 * extension are declared only when a HostServices implementation can serve them; `roots` only
 * when CLAT knows the project root. `listChanged` is true because CLAT would announce a change,
 * but the root of a connection never changes (see roots.ts).
 */
export function clientCapabilities(withHost: boolean, withRoots = false): Record<string, unknown> {
  const roots = withRoots ? { roots: { listChanged: true } } : {};
  if (!withHost) return roots;
  return {
    ...roots,
    sampling: {},
    elicitation: { form: {}, url: {} },
    experimental: {
      [HOST_SERVICES_EXTENSION]: {
        version: HOST_SERVICES_CAPABILITY.version,
        methods: [...HOST_SERVICES_CAPABILITY.methods],
      },
    },
  };
}

/** Per-request `_meta` of the modern era. */
export function modernMeta(
  clientInfo: McpClientInfo,
  capabilities: Record<string, unknown>,
  version: string = MODERN_PROTOCOL_VERSION,
): Record<string, unknown> {
  return {
    [META.protocolVersion]: version,
    [META.clientCapabilities]: capabilities,
    [META.clientInfo]: { ...clientInfo },
  };
}

/** Deadlines of the client. Tests shrink them; production uses the LIMITS defaults. */
export interface McpTimeouts {
  modernProbeMs: number;
  legacyHandshakeMs: number;
  listPageMs: number;
  promptGetMs: number;
  toolCallMs: number;
  toolCallExtensionStepMs: number;
  toolCallExtensionTotalMs: number;
}

export const DEFAULT_TIMEOUTS: Readonly<McpTimeouts> = {
  modernProbeMs: MCP_LIMITS.modernProbeMs,
  legacyHandshakeMs: MCP_LIMITS.legacyHandshakeMs,
  listPageMs: MCP_LIMITS.listPageMs,
  promptGetMs: MCP_LIMITS.listPageMs,
  toolCallMs: LIMITS.toolCallMs,
  toolCallExtensionStepMs: LIMITS.toolCallExtensionStepMs,
  toolCallExtensionTotalMs: LIMITS.toolCallExtensionTotalMs,
};

export function resolveTimeouts(overrides: Partial<McpTimeouts> | undefined): McpTimeouts {
  return { ...DEFAULT_TIMEOUTS, ...overrides };
}

/** Compares two YYYY-MM-DD revisions. */
export function versionAtLeast(version: string, minimum: string): boolean {
  return version >= minimum;
}

/** True when `capabilities.experimental` echoes the host-services extension at CLAT's version. */
export function serverAdvertisesHostServices(capabilities: Record<string, unknown>): boolean {
  const experimental = capabilities.experimental;
  if (!isJsonObject(experimental)) return false;
  const entry = experimental[HOST_SERVICES_EXTENSION];
  return isJsonObject(entry) && entry.version === HOST_SERVICES_VERSION;
}

/** True when `capabilities.tasks.requests.tools.call` says tools/call may create a task. */
export function serverOffersToolTasks(capabilities: Record<string, unknown>): boolean {
  const tasks = capabilities.tasks;
  if (!isJsonObject(tasks) || !isJsonObject(tasks.requests)) return false;
  const tools = tasks.requests.tools;
  return isJsonObject(tools) && isJsonObject(tools.call);
}
