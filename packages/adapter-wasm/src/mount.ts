/**
 * Mounting a WASM plugin: prepare (digest, transpile cache, import allowlist, memory cap), start
 * its sandboxed instance, and register its tools in the kernel registry as `wasm_{plugin}_{tool}`
 * leases on a scope. Host imports go to the HostServices port (the PluginHostBridge), within the
 * manifest's capability ceiling. Every failure is isolated in the plugin's status.
 * @module
 */
import { resolve } from 'node:path';
import {
  type Approver,
  type Effect,
  errorMessage,
  type HostServices,
  isEffect,
  type Lease,
  LIMITS,
  LineTail,
  Redactor,
  type Scope,
  type ToolCallContext,
  type ToolRegistry,
} from '@clat/kernel';
import { warmArgumentValidators } from './argument-validator.js';
import { prepareComponent, wasmCacheDir } from './component-cache.js';
import { startCompile } from './component-compile.js';
import { isWasmError, WasmError, WasmErrorCode } from './errors.js';
import type { WasmGrantStore } from './grants.js';
import { hostImportsFor } from './host-imports.js';
import { JcoGuestHost, type Preopen } from './jco-guest-host.js';
import type { WasmCapabilities } from './plugins-json.js';
import { overlapsOwned } from './preopen-overlap.js';
import { registerTools } from './register-tools.js';
import { createWriteAccess, PROJECT_PREOPEN, type WriteAccess } from './write-access.js';

export const WASM_PROTOCOL_PATH = 'clat-wit/0.1.0';
export const WASM_PROTOCOL_MANIFEST = 'clat-plugin-manifest/1';

export type WasmPluginState = 'loading' | 'ready' | 'failed' | 'closed';

/** One plugin's line in `/mcp`. */
export interface WasmPluginStatus {
  name: string;
  transport: 'wasm';
  protocol: typeof WASM_PROTOCOL_PATH | typeof WASM_PROTOCOL_MANIFEST;
  state: WasmPluginState;
  /** SHA-256 of the component, once read. */
  sha256?: string;
  /** Tools registered in the kernel registry. */
  tools: number;
  /** Instances terminated by a fault (trap, timeout, cancellation, memory) and restarted. */
  restarts: number;
  /** Whether the guest's preopens are writable (a matching grant exists). */
  writable: boolean;
  error?: { code: string; message: string };
  /** Per-tool notes: skipped names, invalid schemas, collisions. */
  notes: string[];
  /** Newest lines of captured guest stdout/stderr. */
  outputTail: string[];
}

export interface MountWasmPluginOptions {
  /** Plugin id; tools become `wasm_{name}_{tool}`. */
  name: string;
  componentPath: string;
  /** Pinned digest; a mismatch fails the plugin. */
  sha256?: string | undefined;
  /** The plugin's configuration, served by `config.get`. */
  config?: unknown;
  /** Manifest ceiling; undefined for path-only plugins (no ceiling). */
  capabilities?: WasmCapabilities | undefined;
  registry: ToolRegistry;
  /** Owns the tool leases and the instance; closing it unmounts the plugin. */
  scope: Scope;
  hostServices: HostServices;
  projectRoot: string;
  /**
   * The host's private state directory (the CLAT home): never preopened, and the parent of the
   * default module cache. Required: the library does not guess it; the app resolves it.
   */
  clatHome: string;
  /** Compiled-module cache. Default: `<clatHome>/cache/wasm`. */
  cacheDir?: string | undefined;
  /** Extra directories the plugin may write to, with a grant. */
  dirs?: readonly string[] | undefined;
  grants?: WasmGrantStore | undefined;
  memoryLimitBytes?: number | undefined;
  callTimeoutMs?: number | undefined;
  onStatus?: ((status: WasmPluginStatus) => void) | undefined;
  /** Known secrets to keep out of status texts; string values of `config` are added. */
  redactor?: Redactor | undefined;
}

export interface MountedWasmPlugin {
  readonly name: string;
  status(): WasmPluginStatus;
  /** The running guest host (undefined when mounting failed). */
  readonly guest: JcoGuestHost | undefined;
  /**
   * Asks the approver for write access (tool `wasm:<name>`, effect write, arguments
   * `{ plugin, component_sha256, write_dirs }`). On allow the grant is saved and the instance is
   * restarted with writable preopens. False when denied, or when no tool of the plugin writes.
   */
  requestWriteAccess(approver: Approver, signal: AbortSignal): Promise<boolean>;
  /** Revokes the tool leases, then terminates the instance. Idempotent. */
  close(): Promise<void>;
}

/** Effects that need a writable filesystem to make sense (the `fs_cap` of the original). */
const WRITE_EFFECTS: ReadonlySet<Effect> = new Set(['write', 'execute', 'destructive']);
const OUTPUT_TAIL_LINES = LIMITS.stderrTailLines;

/** Every string value inside a configuration (candidates for redaction). */
function configStrings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(configStrings);
  if (typeof value === 'object' && value !== null)
    return Object.values(value).flatMap(configStrings);
  return [];
}

/**
 * Mounts one WASM plugin. Never throws for plugin faults: a plugin that cannot load ends in state
 * `failed` with the reason, and registers nothing.
 */
export async function mountWasmPlugin(options: MountWasmPluginOptions): Promise<MountedWasmPlugin> {
  const { name, scope } = options;
  const { clatHome } = options;
  const cacheDir = resolve(options.cacheDir ?? wasmCacheDir(clatHome));
  const tail = new LineTail(OUTPUT_TAIL_LINES, LIMITS.stderrLineBytes);
  // Guest output and errors may echo configured secrets; status texts never show them.
  const redactor = options.redactor ?? new Redactor();
  for (const value of configStrings(options.config)) redactor.add(value);
  const status: WasmPluginStatus = {
    name,
    transport: 'wasm',
    protocol: options.capabilities === undefined ? WASM_PROTOCOL_PATH : WASM_PROTOCOL_MANIFEST,
    state: 'loading',
    tools: 0,
    restarts: 0,
    writable: false,
    notes: [],
    outputTail: [],
  };
  const leases: Lease[] = [];
  let guest: JcoGuestHost | undefined;
  let closing: Promise<void> | undefined;
  const snapshot = (): WasmPluginStatus => ({
    ...status,
    restarts: guest?.restarts ?? 0,
    notes: status.notes.map((note) => redactor.redact(note)),
    outputTail: tail.lines(redactor),
    ...(status.error === undefined
      ? {}
      : { error: { code: status.error.code, message: redactor.redact(status.error.message) } }),
  });
  const publish = () => options.onStatus?.(snapshot());
  const close = (): Promise<void> => {
    closing ??= (async () => {
      for (const lease of leases.reverse()) await lease.release();
      leases.length = 0;
      status.tools = 0;
      await guest?.close();
      status.state = status.state === 'failed' ? 'failed' : 'closed';
      publish();
    })();
    return closing;
  };
  // Set once the guest started and lists a tool that writes: the write policy of this plugin.
  let writeAccess: WriteAccess | undefined;
  let nextGrantRequest = 1;
  const requestWriteAccess = async (approver: Approver, signal: AbortSignal): Promise<boolean> => {
    if (writeAccess === undefined || closing !== undefined) return false;
    const access = writeAccess;
    const dirs = access.requestedDirs(access.mode);
    if (access.granted(dirs)) return status.writable;
    const decision = await approver.approve(
      {
        callId: `wasm-grant-${nextGrantRequest++}`,
        tool: `wasm:${name}`,
        effect: 'write',
        source: { kind: 'wasm', id: name },
        reason: `wasm plugin ${name} asks to write to ${dirs.join(', ')}`,
        arguments: { plugin: name, component_sha256: access.sha256, write_dirs: dirs },
      },
      signal,
    );
    if (decision.outcome !== 'allow' || closing !== undefined) return false;
    access.sessionGrants.push(dirs);
    try {
      await options.grants?.grant(name, access.sha256, dirs);
    } catch (error) {
      // The grant still holds for this process; only remembering it failed.
      status.notes.push(`write grant could not be saved: ${errorMessage(error)}`);
    }
    await access.apply(access.mode);
    publish();
    return status.writable;
  };
  const mounted: MountedWasmPlugin = {
    name,
    status: snapshot,
    get guest() {
      return guest;
    },
    requestWriteAccess,
    close,
  };
  scope.onClose(close, `wasm plugin ${name}`);
  publish();

  try {
    const prepared = await prepareComponent({
      componentPath: options.componentPath,
      sha256: options.sha256,
      cacheDir,
    });
    status.sha256 = prepared.sha256;
    if (prepared.rebuilt !== undefined) {
      status.notes.push(`the compiled-module cache entry was rebuilt: ${prepared.rebuilt}`);
    }
    // V8 compiles while the worker boots and parses the glue (JcoGuestHost waits for both).
    const compiled = startCompile(prepared, options.memoryLimitBytes ?? LIMITS.wasmMemoryBytes);
    const projectRoot = resolve(options.projectRoot);
    // A preopen must neither contain nor sit inside the CLAT home or the module cache: the guest
    // could read the grants or rewrite our glue. Such directories are left out, not the plugin.
    const home = resolve(clatHome);
    const exposes = overlapsOwned([home, cacheDir]);
    const refuse = (dir: string, what: string) =>
      status.notes.push(
        `${WasmErrorCode.WASM_PREOPEN_REFUSED}: ${what} ${dir} is not preopened: it overlaps the CLAT home ${home} or its module cache`,
      );
    const projectOpen = !exposes(projectRoot);
    if (!projectOpen) refuse(projectRoot, 'the project directory');
    const dirs = [...new Set((options.dirs ?? []).map((dir) => resolve(dir)))].filter((dir) => {
      if (!exposes(dir)) return true;
      refuse(dir, 'directory');
      return false;
    });
    const readOnly: Preopen[] = projectOpen
      ? [{ guestPath: PROJECT_PREOPEN, hostPath: projectRoot, writable: false }]
      : [];
    guest = new JcoGuestHost({
      plugin: name,
      component: compiled,
      preopens: readOnly,
      hostImports: hostImportsFor(options),
      callTimeoutMs: options.callTimeoutMs,
      onOutput: (_stream, text) => tail.push(text),
    });
    const starting = guest.start();
    // The main thread is idle while the worker boots and V8 compiles: warm the validator engine.
    warmArgumentValidators();
    const definitions = await starting;
    if (closing !== undefined) return mounted;
    if (options.capabilities?.tools === false && definitions.length > 0) {
      throw new WasmError(
        WasmErrorCode.WASM_CAPABILITY_NOT_DECLARED,
        `wasm plugin ${name} exports ${definitions.length} tools, but its manifest does not declare capability \`tools\``,
      );
    }

    // Writable preopens need a tool that writes, a grant for this digest and directory set, and
    // a permission mode that allows writing; the instance is rebuilt whenever that changes.
    const wantsWrite = definitions.some(
      (definition) => isEffect(definition.effect) && WRITE_EFFECTS.has(definition.effect),
    );
    if (wantsWrite && projectOpen) {
      writeAccess = createWriteAccess({
        name,
        sha256: prepared.sha256,
        projectRoot,
        dirs,
        grants: options.grants,
        guest,
        onChange: (writable) => {
          status.writable = writable;
        },
      });
      await writeAccess.apply(null);
    }
    const access = writeAccess;
    // Runs whose user denied the write grant: they are not asked again.
    const deniedRuns = new Set<string>();
    const beforeCall =
      access === undefined
        ? undefined
        : async (ctx: ToolCallContext, effect: Effect) => {
            const { mode } = ctx.run;
            await access.apply(mode);
            if (mode === 'read-only' || !WRITE_EFFECTS.has(effect)) return;
            if (access.granted(access.requestedDirs(mode)) || deniedRuns.has(ctx.run.id)) return;
            const approver = ctx.run.approver;
            if (approver === undefined) return;
            if (!(await requestWriteAccess(approver, ctx.signal))) deniedRuns.add(ctx.run.id);
          };
    registerTools(options, guest, definitions, status, leases, beforeCall);
    status.state = 'ready';
  } catch (error) {
    status.state = 'failed';
    status.error = isWasmError(error)
      ? { code: error.code, message: error.message }
      : { code: WasmErrorCode.WASM_START_FAILED, message: errorMessage(error) };
    for (const lease of leases.splice(0)) await lease.release();
    status.tools = 0;
    await guest?.close();
  }
  publish();
  return mounted;
}
