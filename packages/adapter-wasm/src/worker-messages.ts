/**
 * The messages a guest worker (worker/guest-worker.mjs) posts to its guest host
 * (jco-guest-host.ts), and the host-import requests on its dedicated port.
 * @module
 */
import { errorMessage } from '@clat/kernel';
import type { GuestToolDefinition } from './guest-host-contract.js';

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
