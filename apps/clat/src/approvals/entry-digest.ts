/**
 * The configuration digest a saved approval is bound to: what decides which program or endpoint
 * answers (command, args, cwd, URL, package path and pins) and the names, not values, of env
 * variables and headers, so rotating a key does not reset approvals but another binary does.
 * It is `configDigest`, the key of the era memory too: one notion of "the same configuration".
 * @module
 */
import { configDigest } from '@clat/adapter-mcp-stdio/eras';
import type { ToolSourceRef } from '@clat/kernel';

/** Any mount entry: a name plus its configuration fields. */
interface Entry {
  name: string;
}

/** Digests by source: native tools share one fixed digest; plugins use their entry's. */
export function createDigestLookup(
  entries: readonly Entry[],
): (source: ToolSourceRef) => string | undefined {
  const byName = new Map(entries.map((entry) => [entry.name, configDigest(entry)]));
  return (source) => (source.kind === 'native' ? 'native' : byName.get(source.id));
}
