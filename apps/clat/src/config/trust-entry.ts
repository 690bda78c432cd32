/**
 * Which trust.json entries trust a project, shared by the trust store and the prestart (which
 * spawns servers before the rest of `clat` loads, so it must not trust more than the store does).
 * @module
 */
import { isAbsolute } from 'node:path';

/**
 * True for an entry as `clat trust` records it: an absolute root whose value holds `trustedAt`.
 * Anything else (`false`, `null`, a relative key) trusts nothing, whatever it was meant to say.
 */
export function isTrustEntry(root: string, value: unknown): boolean {
  return (
    isAbsolute(root) &&
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as { trustedAt?: unknown }).trustedAt === 'string'
  );
}
