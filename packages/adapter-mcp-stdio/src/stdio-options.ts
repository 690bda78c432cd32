/**
 * The options of one stdio transport.
 * @module
 */
import type { Redactor } from '@clat/kernel';
import type { PrestartedServer } from './prestart.js';
import type { StdoutChannel } from './server-output.js';

export interface StdioTransportOptions {
  /** Server name, used in diagnostics and error messages. */
  name: string;
  command: string;
  args?: readonly string[] | undefined;
  /** Merged over the inherited environment. */
  env?: Readonly<Record<string, string>> | undefined;
  /** Absolute, `~/…`, or relative to `defaultCwd` (and inside it). Default: `defaultCwd`. */
  cwd?: string | undefined;
  /**
   * Absolute directory a server without `cwd` runs in, and the base of a relative `cwd`; created
   * 0700 when missing. Never the project directory (`clat` passes its CLAT home).
   */
  defaultCwd: string;
  /**
   * Said instead of the bare ENOENT when the configured `cwd` no longer exists: an installed
   * package's directory, which another process's `clat plugin update` or `uninstall` removes
   * while this process still runs its server.
   */
  cwdGone?: string | undefined;
  /** What messages call the program to restart or start again (default `CLAT`). */
  hostName?: string | undefined;
  /** Exact secrets to redact from stderr and errors, on top of key-shaped values. */
  redactor?: Redactor | undefined;
  /** Grace before each teardown escalation. Default: {@link LIMITS.shutdownGraceMs}. */
  shutdownGraceMs?: number | undefined;
  /** Called with the pid (= process-group id) of each spawned server. */
  onSpawn?: ((pid: number) => void) | undefined;
  /**
   * This server's process, spawned ahead of the transport from the same launch: adopted instead
   * of spawning when it started (when it did not, the transport spawns and reports why).
   */
  prestarted?: PrestartedServer | undefined;
  /**
   * How the server's stdout is read. `'socket'` (the default): through a socket pair, into one
   * reused buffer, where the platform allows (Linux), else a pipe. `'pipe'`: child_process's pipe,
   * which hands over a new buffer per read. A prestarted server is always read from its pipe.
   */
  stdout?: StdoutChannel | undefined;
}
