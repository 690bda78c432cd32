/**
 * Host context snapshots: the run's facts and its bounded, detached history.
 * @module
 */
import {
  HOST_SERVICES_VERSION,
  type HostContextSnapshot,
  NATIVE_HOST_TOOLS,
} from '../contract/host-services.js';
import { utf8Length } from '../json.js';
import { LIMITS } from '../limits.js';
import type { ActiveRun } from './bridge-run.js';

/** The snapshot of `run` in the project at `projectRoot`, with `history` bounded. */
export function runSnapshot(
  projectRoot: string,
  run: ActiveRun,
  history: readonly unknown[],
): HostContextSnapshot {
  return {
    protocolVersion: HOST_SERVICES_VERSION,
    project: { root: projectRoot },
    run: {
      runId: run.runId,
      sessionId: run.sessionId,
      provider: run.model?.name ?? null,
      model: run.model?.model ?? null,
      permissionMode: run.mode,
      messages: boundHistory(history),
    },
    hostTools: [...NATIVE_HOST_TOOLS],
  };
}

/**
 * Keeps the last `LIMITS.contextMessages` items as detached JSON copies, then drops the oldest
 * while the serialized list is over `LIMITS.contextSnapshotBytes`. Items that are not
 * JSON-serializable (cycles, BigInt) are skipped; a single oversized item leaves the list empty.
 */
export function boundHistory(items: readonly unknown[]): unknown[] {
  const recent = items.slice(-LIMITS.contextMessages);
  const kept: { value: unknown; bytes: number }[] = [];
  for (const item of recent) {
    let json: string | undefined;
    try {
      json = JSON.stringify(item);
    } catch {
      continue;
    }
    if (json === undefined) continue;
    kept.push({ value: JSON.parse(json) as unknown, bytes: utf8Length(json) });
  }
  // `[` + items joined by `,` + `]`
  let total = 2 + kept.reduce((sum, entry) => sum + entry.bytes, 0) + Math.max(0, kept.length - 1);
  let start = 0;
  while (start < kept.length && total > LIMITS.contextSnapshotBytes) {
    total -= (kept[start] as { bytes: number }).bytes + (kept.length - start > 1 ? 1 : 0);
    start++;
  }
  return kept.slice(start).map((entry) => entry.value);
}
