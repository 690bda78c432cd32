/** Exit codes of commands that run tools, and the mapping from kernel failures. @module */
import { isClatError, KernelErrorCode } from '@clat/kernel';

export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  denied: 3,
  cancelled: 130,
} as const;

export function exitCodeFor(error: unknown): number {
  if (!isClatError(error)) return EXIT.failed;
  if (error.code === KernelErrorCode.PERMISSION_DENIED) return EXIT.denied;
  if (error.code === KernelErrorCode.CANCELLED) return EXIT.cancelled;
  return EXIT.failed;
}
