/**
 * What a guest host is given and reports: preopened directories, the guest's tool definitions,
 * the host-import handler, call outcomes and the host's options (jco-guest-host.ts runs them).
 * @module
 */
import type { CompiledComponent, CompilingComponent } from './component-compile.js';

/** A directory the guest sees through `wasi:filesystem/preopens`. */
export interface Preopen {
  /** The name the guest sees (e.g. `project`). */
  guestPath: string;
  /** Absolute host directory. */
  hostPath: string;
  writable: boolean;
}

/** A tool as the guest declares it (WIT `definition`, jco shape). */
export interface GuestToolDefinition {
  name: string;
  description: string;
  inputSchema: string;
  effect: string;
}

/** Answers one host import; the result is the ok value, a throw becomes err(message). */
export type HostImportHandler = (
  iface: string,
  fn: string,
  args: unknown[],
  signal: AbortSignal,
) => Promise<unknown>;

export type GuestCallOutcome =
  | { kind: 'ok'; value: string }
  /** The guest returned err(message); the instance stays. */
  | { kind: 'error'; message: string }
  /** The instance was terminated and will be restarted on the next call. */
  | { kind: 'trap' | 'timeout' | 'cancelled' | 'out-of-memory'; message: string };

export interface JcoGuestHostOptions {
  plugin: string;
  /**
   * The component, compiled, still compiling or still being prepared: a first worker then boots
   * while the host reads and verifies the component, imports the glue while V8 compiles, and gets
   * each once it is ready. A rejected preparation fails `start()` with its error.
   */
  component:
    | CompiledComponent
    | CompilingComponent
    | Promise<CompiledComponent | CompilingComponent>;
  preopens: readonly Preopen[];
  hostImports: HostImportHandler;
  /**
   * Budget of one call, including time in ordinary host calls. Default: the kernel's tool-call
   * limit.
   */
  callTimeoutMs?: number | undefined;
  /** Most that sampling/elicitation waits may extend one call. Default: the kernel's limit. */
  hostWaitLimitMs?: number | undefined;
  /** Calls that may wait behind the running one; more fail fast. Default: the kernel's limit. */
  queueLimit?: number | undefined;
  /** Budget of instantiation plus list-tools. */
  startTimeoutMs?: number | undefined;
  /** Captured guest stdout/stderr. */
  onOutput?: ((stream: 'stdout' | 'stderr', text: string) => void) | undefined;
  /** Called when an instance is terminated (the next call restarts it). */
  onRecycle?: ((reason: string) => void) | undefined;
  /** Cap of captured output per instance. */
  outputLimitBytes?: number | undefined;
  /**
   * Called once, after a start, with V8's code cache of the glue script when the worker had no
   * usable one (none given, or V8 refused it): the owner may keep it for later processes
   * (glue-code-cache.ts). Later workers of this host get it either way.
   */
  onGlueCodeCache?: ((data: Uint8Array) => void) | undefined;
}
