/**
 * Typed errors of the WASM adapter. Every code is listed once here.
 * @module
 */

import { ClatError, type ClatErrorOptions, clatErrorGuard } from '@clat/kernel';

export const WasmErrorCode = {
  /** The component file does not exist or cannot be read. */
  WASM_COMPONENT_UNREADABLE: 'WASM_COMPONENT_UNREADABLE',
  /** The component file is larger than the component size limit. */
  WASM_COMPONENT_TOO_LARGE: 'WASM_COMPONENT_TOO_LARGE',
  /** The component's SHA-256 differs from the pinned digest. */
  WASM_DIGEST_MISMATCH: 'WASM_DIGEST_MISMATCH',
  /** jco could not transpile the component (not a component, or malformed). */
  WASM_TRANSPILE_FAILED: 'WASM_TRANSPILE_FAILED',
  /** The component imports an interface outside the host's allowlist. */
  WASM_IMPORT_NOT_ALLOWED: 'WASM_IMPORT_NOT_ALLOWED',
  /** The memory cap could not be applied (memory64, or a minimum above the cap). */
  WASM_MEMORY_CAP_FAILED: 'WASM_MEMORY_CAP_FAILED',
  /** The compiled-module cache entry is corrupt or was modified. */
  WASM_CACHE_CORRUPT: 'WASM_CACHE_CORRUPT',
  /** The guest failed to instantiate or to list its tools. */
  WASM_START_FAILED: 'WASM_START_FAILED',
  /** A guest started at its first call lists other tools than the ones registered for it. */
  WASM_TOOLS_CHANGED: 'WASM_TOOLS_CHANGED',
  /** The guest trapped (unreachable, stack overflow, abort, out of memory in the engine). */
  WASM_TRAP: 'WASM_TRAP',
  /** A call ran past its time budget; the instance was terminated. */
  WASM_CALL_TIMEOUT: 'WASM_CALL_TIMEOUT',
  /** A call was cancelled; the instance was terminated. */
  WASM_CALL_CANCELLED: 'WASM_CALL_CANCELLED',
  /** A guest used a host capability its manifest does not declare. */
  WASM_CAPABILITY_NOT_DECLARED: 'WASM_CAPABILITY_NOT_DECLARED',
  /** plugins.json, a plugin manifest or plugin-grants.json is invalid. */
  WASM_CONFIG_INVALID: 'WASM_CONFIG_INVALID',
  /** A directory was not preopened: it overlaps the CLAT home or the module cache. */
  WASM_PREOPEN_REFUSED: 'WASM_PREOPEN_REFUSED',
  /** Too many calls are already waiting for the plugin's instance. */
  WASM_QUEUE_FULL: 'WASM_QUEUE_FULL',
  /** The plugin was closed. */
  WASM_CLOSED: 'WASM_CLOSED',
} as const;

export type WasmErrorCode = (typeof WasmErrorCode)[keyof typeof WasmErrorCode];

/** A local error of the WASM adapter, carrying a code from {@link WasmErrorCode}. */
export class WasmError extends ClatError<WasmErrorCode> {
  constructor(code: WasmErrorCode, message: string, options: ClatErrorOptions = {}) {
    super(code, message, options);
    this.name = 'WasmError';
  }
}

/** True for an WasmError from any bundled copy of this package. */
export const isWasmError = clatErrorGuard<WasmError>('WasmError');
