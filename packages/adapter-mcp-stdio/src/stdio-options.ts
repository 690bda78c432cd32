/**
 * The options of one stdio transport.
 * @module
 */
import type { Redactor } from '@clat/kernel';

export interface StdioTransportOptions {
  /** Server name, used in diagnostics and error messages. */
  name: string;
  command: string;
  args?: readonly string[] | undefined;
  /** Merged over the inherited environment. */
  env?: Readonly<Record<string, string>> | undefined;
  /** Absolute, `~/…`, or relative to the CLAT home. Default: the CLAT home itself. */
  cwd?: string | undefined;
  /** Default: `$CLAT_HOME`, else `~/.clat`. Created when missing. */
  clatHome?: string | undefined;
  /** Exact secrets to redact from stderr and errors, on top of key-shaped values. */
  redactor?: Redactor | undefined;
  /** Grace before each teardown escalation. Default: {@link LIMITS.shutdownGraceMs}. */
  shutdownGraceMs?: number | undefined;
  /** Called with the pid (= process-group id) of each spawned server. */
  onSpawn?: ((pid: number) => void) | undefined;
}
