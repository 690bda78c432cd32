/**
 * The host-services port: the one semantic host behind every plugin runtime's host calls (an
 * MCP extension, WIT imports, the DSH adapter). Adapters only translate to and from these shapes;
 * wire names live with each wire.
 * @module
 */
import * as z from 'zod';
import { PERMISSION_MODES } from '../effects.js';
import type { ToolSourceRef } from '../events.js';
import { lazyValue } from '../lazy-value.js';
import type {
  ElicitationForm,
  ElicitationOutcome,
  SamplingOutcome,
  SamplingRequest,
} from './plugin-contract.js';

/** Version of the host-services contract (the context snapshot carries it). */
export const HOST_SERVICES_VERSION = '0.1.0';

/** The only native tools a plugin may call through host services. */
export const NATIVE_HOST_TOOLS = [
  'list_files',
  'read_file',
  'search',
  'write_file',
  'edit_file',
  'run_command',
] as const;

export type NativeHostTool = (typeof NATIVE_HOST_TOOLS)[number];

export function isNativeHostTool(name: string): name is NativeHostTool {
  return (NATIVE_HOST_TOOLS as readonly string[]).includes(name);
}

export const HostContextSnapshotSchema = lazyValue(() =>
  z.object({
    protocolVersion: z.literal(HOST_SERVICES_VERSION),
    project: z.object({ root: z.string() }),
    run: z
      .object({
        runId: z.string(),
        sessionId: z.string().nullable(),
        provider: z.string().nullable(),
        model: z.string().nullable(),
        permissionMode: z.enum(PERMISSION_MODES).nullable(),
        /** The last messages of the run, oldest first, bounded in count and bytes. */
        messages: z.array(z.unknown()),
      })
      .nullable(),
    hostTools: z.array(z.string()),
  }),
);

export type HostContextSnapshot = z.infer<typeof HostContextSnapshotSchema>;

/** Params and result of a host-tool call. */
export const HostToolCallParamsSchema = lazyValue(() =>
  z.object({
    name: z.string().min(1),
    arguments: z.record(z.string(), z.unknown()).optional(),
  }),
);
export const HostToolCallResultSchema = lazyValue(() => z.object({ output: z.unknown() }));

export type HostToolCallParams = z.infer<typeof HostToolCallParamsSchema>;

/** Who is asking: `{ kind: 'mcp', id: server }`, `{ kind: 'wasm', id: plugin }`… */
export type HostCaller = ToolSourceRef;

/**
 * What a plugin may ask of the host. Every method refuses outside an active run
 * (HOST_NO_ACTIVE_RUN) and honours `signal` (the caller's tool call or the run).
 */
export interface HostServices {
  context(caller: HostCaller): Promise<HostContextSnapshot>;
  callTool(caller: HostCaller, name: string, args: unknown, signal: AbortSignal): Promise<unknown>;
  createMessage(
    caller: HostCaller,
    request: SamplingRequest,
    signal: AbortSignal,
  ): Promise<SamplingOutcome>;
  elicit(
    caller: HostCaller,
    form: ElicitationForm,
    signal: AbortSignal,
  ): Promise<ElicitationOutcome>;
  /** Context pushes; `null` when the run ends. Returns unsubscribe. */
  subscribeContext(
    caller: HostCaller,
    listener: (snapshot: HostContextSnapshot | null) => void,
  ): () => void;
}
