/**
 * Qualified tool names: `{prefix}_{source}_{tool}`, ASCII `[A-Za-z0-9_]`, at most 64 characters.
 * @module
 */
import { KernelError, KernelErrorCode } from './errors.js';
import { LIMITS } from './limits.js';

/** Replaces characters outside `[A-Za-z0-9_]` with `_`, then trims leading/trailing non-alphanumerics. */
export function normalizeNameSegment(segment: string): string {
  return segment.replace(/[^A-Za-z0-9_]/g, '_').replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const U64 = 0xffffffffffffffffn;

/** 64-bit FNV-1a over UTF-8 bytes; stable across platforms and releases. */
export function fnv1a64(text: string): bigint {
  let hash = FNV_OFFSET;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= BigInt(byte);
    hash = (hash * FNV_PRIME) & U64;
  }
  return hash;
}

/**
 * Builds the registry name of an extension tool. Names over the limit keep their first 55
 * characters and get `_` plus 8 hex digits of a hash of the full name, so they stay stable and
 * distinct. Throws REGISTRY_INVALID_NAME when a segment normalizes to nothing.
 */
export function qualifyToolName(prefix: string, source: string, tool: string): string {
  const parts = [prefix, source, tool].map(normalizeNameSegment);
  const empty = parts.findIndex((part) => part.length === 0);
  if (empty !== -1) {
    const raw = [prefix, source, tool][empty];
    throw new KernelError(
      KernelErrorCode.REGISTRY_INVALID_NAME,
      `name segment ${JSON.stringify(raw)} has no ASCII letters or digits`,
      { data: { prefix, source, tool } },
    );
  }
  const qualified = parts.join('_');
  const max = LIMITS.toolNameChars;
  if (qualified.length <= max) return qualified;
  const suffix = (fnv1a64(qualified) & 0xffffffffn).toString(16).padStart(8, '0');
  return `${qualified.slice(0, max - suffix.length - 1)}_${suffix}`;
}
