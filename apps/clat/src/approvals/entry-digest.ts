/**
 * The configuration digest a saved approval is bound to: what decides which program or endpoint
 * answers (command, args, cwd, URL, package path and pins) and the names, not values, of env
 * variables and headers, so rotating a key does not reset approvals but another binary does.
 * @module
 */
import { createHash } from 'node:crypto';
import type { ToolSourceRef } from '@clat/kernel';

/** Any mount entry: a name plus its configuration fields. */
interface Entry {
  name: string;
}

/** Stable JSON: object keys sorted at every level. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function entryDigest(entry: Entry): string {
  const shaped: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entry as object)) {
    if ((key === 'env' || key === 'headers') && typeof value === 'object' && value !== null) {
      shaped[key] = Object.keys(value).sort();
    } else if (key !== 'origin') shaped[key] = value;
  }
  return `sha256:${createHash('sha256').update(canonical(shaped)).digest('hex')}`;
}

/** Digests by source: native tools share one fixed digest; plugins use their entry's. */
export function createDigestLookup(
  entries: readonly Entry[],
): (source: ToolSourceRef) => string | undefined {
  const byName = new Map(entries.map((entry) => [entry.name, entryDigest(entry)]));
  return (source) => (source.kind === 'native' ? 'native' : byName.get(source.id));
}
