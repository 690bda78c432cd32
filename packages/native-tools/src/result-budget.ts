/**
 * Keeps a tool's JSON output under the kernel's tool-result limit: the pipeline rejects larger
 * results outright, so list/read/search stop early and report truncation instead.
 * @module
 */
import { LIMITS } from '@clat/kernel';

/** Room left for the fixed fields of an output object around its list or text. */
const ENVELOPE_BYTES = 8 * 1024;

export class ResultBudget {
  #left: number;

  constructor(limit: number = LIMITS.toolResultBytes - ENVELOPE_BYTES) {
    this.#left = limit;
  }

  /** Reserves the serialized size of `value` (plus a separator); false when it does not fit. */
  take(value: unknown): boolean {
    const bytes = Buffer.byteLength(JSON.stringify(value) ?? '') + 1;
    if (bytes > this.#left) return false;
    this.#left -= bytes;
    return true;
  }
}
