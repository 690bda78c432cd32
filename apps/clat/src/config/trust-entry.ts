/**
 * Which trust.json entries trust a project, shared by the trust store and the prestart (which
 * spawns servers before the rest of `clat` loads, so it must not trust more than the store does).
 * @module
 */
import { isAbsolute, resolve } from 'node:path';

/**
 * True for an entry as `clat trust` records it: a canonical absolute root (no trailing slash, no
 * `.` or `..` parts, which a lookup of the real path never matches) whose value holds
 * `trustedAt`. Anything else (`false`, `null`, a relative key) trusts nothing.
 */
export function isTrustEntry(root: string, value: unknown): boolean {
  return (
    isCanonicalRoot(root) &&
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as { trustedAt?: unknown }).trustedAt === 'string'
  );
}

/** An absolute path as `resolve` writes it: the form every trust lookup compares. */
export function isCanonicalRoot(root: string): boolean {
  return isAbsolute(root) && resolve(root) === root;
}
