/**
 * The messages between a guest worker (worker/guest-worker.mjs) and its guest host
 * (jco-guest-host.ts): the glue it is given, what it posts back, and the host-import requests on
 * its dedicated port.
 * @module
 */
import { errorMessage } from '@clat/kernel';
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
  | { type: 'start-failed'; message: string }
  | { type: 'output'; stream: 'stdout' | 'stderr'; text: string }
  /** V8's code cache of the glue script, made after the start when none was usable. */
  | { type: 'glue-code-cache'; data: Uint8Array }
  | ResultMessage;

/** `CODE: message` for typed errors, so the guest can tell denials from failures. */
export function hostErrorText(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = errorMessage(error);
  return typeof code === 'string' && /^[A-Z_]+$/.test(code) ? `${code}: ${message}` : message;
}
