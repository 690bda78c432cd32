/**
 * The messages between a guest worker (worker/guest-worker.mjs) and its guest host
 * (jco-guest-host.ts): the glue it is given, what it posts back, and the host-import requests on
 * its dedicated port.
 * @module
 */
import { errorMessage, LIMITS } from '@clat/kernel';
import type { GuestToolDefinition } from './guest-host-contract.js';

/** What a guest worker is given to load the glue (worker/glue-script.mjs says what it runs). */
export interface GuestGlue {
  /** The glue source, as verified. */
  source: string;
  /** A verified V8 code cache of the glue's script, if there is one. */
  codeCache?: Uint8Array | undefined;
}

export interface HostRequest {
  iface: string;
  fn: string;
  args: unknown[];
}

export interface ResultMessage {
  type: 'result';
  id: number;
  outcome: 'ok' | 'err' | 'trap';
  value: string;
  memoryBytes: number;
}

export type WorkerMessage =
  | {
      type: 'ready';
      tools: GuestToolDefinition[];
      memoryBytes: number;
      /** A `glue-code-cache` message follows. */
      glueCodeCache: boolean;
    }
  | StartFailedMessage
  | { type: 'output'; stream: 'stdout' | 'stderr'; text: string }
  /** V8's code cache of the glue script, made after the start when none was usable. */
  | { type: 'glue-code-cache'; data: Uint8Array }
  | ResultMessage;

/** A start that failed: instantiating the component, or (with `listTools`) listing its tools. */
export interface StartFailedMessage {
  type: 'start-failed';
  /** The error, as `Name: message`. */
  message: string;
  /** Set when `list-tools` failed: the instance was made, its tool list could not be read. */
  listTools?: {
    /** The guest trapped (a WebAssembly RuntimeError), rather than the glue throwing. */
    trapped: boolean;
    /** The end of what the guest wrote to stderr during `list-tools`. */
    stderr: string;
  };
}

/**
 * Why a guest that trapped printed it trapped: StarlingMonkey (componentize-js guests) prints an
 * uncaught exception as its message, a `Stack:` line and the frames, then aborts, so the reason
 * is the last line before the last `Stack:` line, for instance `"writes" is not one of the cases
 * of effect` from a tool list that lowers an effect outside the WIT enum. Undefined for output
 * of another shape: its tail is in the plugin's output lines anyway.
 */
export function trapReasonOf(stderr: string): string | undefined {
  const lines = stderr.split(/\r?\n/);
  const stack = lines.lastIndexOf('Stack:');
  if (stack < 0) return undefined;
  const reason = lines
    .slice(0, stack)
    .findLast((line) => line.trim() !== '')
    ?.trim();
  if (reason === undefined) return undefined;
  const cap = LIMITS.stderrLineBytes;
  return reason.length > cap ? `${reason.slice(0, cap)}…` : reason;
}

/**
 * The failure text of a start that failed, naming the plugin and, when it was listing its tools
 * that failed, `list-tools` and why. A component that instantiates but traps in `list-tools`
 * (built with an SDK that did not check the tool list, or with hand-written bindings) would
 * otherwise read as a bare `wasm trap: unreachable`.
 */
export function startFailedText(plugin: string, failed: StartFailedMessage): string {
  const start = `wasm plugin ${plugin} failed to start`;
  const listing = failed.listTools;
  if (listing === undefined) return `${start}: ${failed.message}`;
  if (!listing.trapped) return `${start}: listing its tools (list-tools) failed: ${failed.message}`;
  const reason = trapReasonOf(listing.stderr) ?? failed.message;
  return `${start}: listing its tools (list-tools) trapped: ${reason}`;
}

/** `CODE: message` for typed errors, so the guest can tell denials from failures. */
export function hostErrorText(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = errorMessage(error);
  return typeof code === 'string' && /^[A-Z_]+$/.test(code) ? `${code}: ${message}` : message;
}
