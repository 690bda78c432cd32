/**
 * Mounting a WASM plugin: prepare (digest, transpile cache, import allowlist, memory cap), start
 * its sandboxed instance, and register its tools in the kernel registry as `wasm_{plugin}_{tool}`
 * leases on the plugin's own scope. Host imports go to the HostServices port (the
 * PluginHostBridge), within the manifest's capability ceiling. Every failure is isolated in the
 * plugin's report, the kernel's `MountReport`: a host folds it into `MountStatus` as it is and
 * redacts it with its one redactor.
 * @module
 */
import { resolve } from 'node:path';
import { warmArgumentValidators } from '@clat/json-schema';
import {
  type Approver,
  type Effect,
  errorMessage,
  type HostServices,
  isEffect,
  isKernelError,
  KernelErrorCode,
  LIMITS,
  LineTail,
  type MountReport,
  type Redactor,
  type Scope,
  type ToolCallContext,
  type ToolRegistry,
} from '@clat/kernel';
import { type PreparedComponent, prepareComponent, wasmCacheDir } from './component-cache.js';
import { startCompile } from './component-compile.js';
import { isWasmError, WasmError, WasmErrorCode } from './errors.js';
import { saveGlueCodeCache } from './glue-code-cache.js';
import type { WasmGrantStore } from './grants.js';
import type { GuestToolDefinition, Preopen } from './guest-host-contract.js';
import { hostImportsFor } from './host-imports.js';
import { JcoGuestHost } from './jco-guest-host.js';
import { type GuestCaller, startOnFirstCall } from './lazy-start.js';
import type { WasmCapabilities } from './plugins-json.js';
import { overlapsOwned } from './preopen-overlap.js';
import { type RegisteredBefore, registerTools, unusableSchemasOf } from './register-tools.js';
import { lookUpTools, recordToolList } from './tool-list-memo.js';
import { createWriteAccess, PROJECT_PREOPEN, type WriteAccess } from './write-access.js';

/** `MountReport.protocolVersion` of a path-only plugin (no manifest). */
export const WASM_PROTOCOL_PATH = 'clat-wit/0.1.0';
/** `MountReport.protocolVersion` of a manifest-backed plugin. */
export const WASM_PROTOCOL_MANIFEST = 'clat-plugin-manifest/1';

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
  /**
   * This plugin's own scope (a host gives `projectScope.pluginScope(name)`): it owns the tool
   * leases and the instance. Closing it revokes the leases (reverse order), then terminates the
   * instance; a failed mount closes it.
   */
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
  /** Recorded write grants; a load warning of the store shows in the report's warnings. */
  grants?: WasmGrantStore | undefined;
  memoryLimitBytes?: number | undefined;
  callTimeoutMs?: number | undefined;
  /**
   * Registers the tools this component listed at an earlier mount with the same config,
   * capabilities, directories and memory cap (remembered in its cache entry) and starts the
   * instance at the first call instead of now; a mount without such a list starts the instance
   * and remembers what it lists. Default false: the instance starts, and lists, at every mount.
   */
  lazyStart?: boolean | undefined;
  /** Every report change (a host passes its `onProgress`); texts are raw but the output tail. */
  onStatus?: ((report: MountReport) => void) | undefined;
  /**
   * The status owner's redactor (a host passes its own), used only where a text is cut: the
   * guest-output tail is redacted before its lines are capped, so a cut never shows part of a
   * secret. Default: key-shaped values only. Nothing is added to it here.
   */
  redactor?: Redactor | undefined;
}

export interface MountedWasmPlugin {
  readonly name: string;
  /** The plugin's report: the kernel's `MountReport`, texts raw but the output tail. */
  status(): MountReport;
  /** SHA-256 of the component, once read. */
  readonly sha256: string | undefined;
  /** Instances terminated by a fault (trap, timeout, cancellation, memory) and restarted. */
  readonly restarts: number;
  /** Whether the guest's preopens are writable now (a matching grant and mode). */
  readonly writable: boolean;
  /** The running guest host (undefined when mounting failed). */
  readonly guest: JcoGuestHost | undefined;
  /**
   * Asks the approver for write access (tool `wasm:<name>`, effect write, arguments
   * `{ plugin, component_sha256, write_dirs }`). On allow the grant is saved and the instance is
   * restarted with writable preopens. False when denied, or when no tool of the plugin writes.
   */
  requestWriteAccess(approver: Approver, signal: AbortSignal): Promise<boolean>;
  /** Closes the plugin's scope: its tool leases are revoked, then the instance ends. Idempotent. */
  close(): Promise<void>;
}

/** Effects that need a writable filesystem to make sense (the `fs_cap` of the original). */
const WRITE_EFFECTS: ReadonlySet<Effect> = new Set(['write', 'execute', 'destructive']);
const OUTPUT_TAIL_LINES = LIMITS.stderrTailLines;

/**
 * Mounts one WASM plugin. Never throws for plugin faults: a plugin that cannot load ends in state
 * `failed` with the reason, and registers nothing. A frozen registry is not a plugin fault: its
 * REGISTRY_FROZEN error propagates (after the scope closed) for the host to report.
 */
export async function mountWasmPlugin(options: MountWasmPluginOptions): Promise<MountedWasmPlugin> {
  const { name, scope } = options;
  const { clatHome } = options;
  const cacheDir = resolve(options.cacheDir ?? wasmCacheDir(clatHome));
  const tail = new LineTail(OUTPUT_TAIL_LINES, LIMITS.stderrLineBytes);
  const { redactor } = options;
  // Registration and mount notes (raw: the status owner redacts them).
  const warnings: string[] = options.grants?.warning === undefined ? [] : [options.grants.warning];
  const status: {
    state: MountReport['state'];
    tools: number;
    writable: boolean;
    sha256?: string;
    failure?: string;
  } = { state: 'connecting', tools: 0, writable: false };
  const protocolVersion =
    options.capabilities === undefined ? WASM_PROTOCOL_PATH : WASM_PROTOCOL_MANIFEST;
  let guest: JcoGuestHost | undefined;
  /** The write of the glue's code cache, once the guest made one (it never rejects). */
  let savingCodeCache: Promise<void> | undefined;
  // Whether the component was prepared: before that the guest host has only booted a worker,
  // and a mount that fails there (a refused or unreadable component) reports no guest.
  let prepared = false;
  const report = (): MountReport => {
    const out: MountReport = {
      state: status.state,
      protocolVersion,
      tools: status.tools,
      warnings: [...warnings],
      stderrTail: tail.lines(redactor),
    };
    if (status.state === 'connecting') out.phase = 'loading';
    if (status.failure !== undefined) out.failure = status.failure;
    return out;
  };
  const publish = () => options.onStatus?.(report());
  // The scope's last close step: the tool leases were revoked before it (LIFO).
  const closeGuest = async (): Promise<void> => {
    status.tools = 0;
    await guest?.close();
    await savingCodeCache;
    if (status.state !== 'failed') status.state = 'closed';
    publish();
  };
  // Set once the guest started and lists a tool that writes: the write policy of this plugin.
  let writeAccess: WriteAccess | undefined;
  let nextGrantRequest = 1;
  const requestWriteAccess = async (approver: Approver, signal: AbortSignal): Promise<boolean> => {
    if (writeAccess === undefined || scope.closed) return false;
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
    if (decision.outcome !== 'allow' || scope.closed) return false;
    access.sessionGrants.push(dirs);
    try {
      await options.grants?.grant(name, access.sha256, dirs);
    } catch (error) {
      // The grant still holds for this process; only remembering it failed.
      warnings.push(`write grant could not be saved: ${errorMessage(error)}`);
    }
    await access.apply(access.mode);
    publish();
    return status.writable;
  };
  const mounted: MountedWasmPlugin = {
    name,
    status: report,
    get sha256() {
      return status.sha256;
    },
    get restarts() {
      return guest?.restarts ?? 0;
    },
    get writable() {
      return status.writable;
    },
    get guest() {
      return prepared ? guest : undefined;
    },
    requestWriteAccess,
    close: () => scope.close(),
  };
  if (scope.closed) {
    status.state = 'failed';
    status.failure = `the scope of wasm plugin ${name} closed before it was mounted`;
    return mounted;
  }
  scope.onClose(closeGuest, `wasm plugin ${name}`);
  publish();

  try {
    const projectRoot = resolve(options.projectRoot);
    // A preopen must neither contain nor sit inside the CLAT home or the module cache: the guest
    // could read the grants or rewrite our glue. Such directories are left out, not the plugin.
    const home = resolve(clatHome);
    const exposes = overlapsOwned([home, cacheDir]);
    const refuse = (dir: string, what: string) =>
      warnings.push(
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
    const memoryLimitBytes = options.memoryLimitBytes ?? LIMITS.wasmMemoryBytes;
    const component = {
      componentPath: options.componentPath,
      sha256: options.sha256,
      cacheDir,
      memoryLimitBytes,
    };
    const lazy =
      options.lazyStart === true
        ? await lookUpTools(component, {
            config: options.config,
            capabilities: options.capabilities,
            preopens: readOnly,
            dirs,
            memoryLimitBytes,
          })
        : undefined;
    const remembered = lazy?.remembered;
    if (scope.closed) return mounted;
    let begin: (() => void) | undefined;
    const preparing =
      remembered === undefined
        ? prepareComponent(component)
        : new Promise<void>((go) => {
            begin = go;
          }).then(() =>
            // Pinned to the listed digest: a component replaced since is refused, never run
            // under the tool list (and write grants) of the one that was listed.
            prepareComponent({ ...component, sha256: remembered.sha256 }),
          );
    // Never left unobserved: a failure is thrown where it is awaited below.
    preparing.catch(() => {});
    // The guest's worker boots while the component is read and verified (a cached load's
    // longest step is Node's worker start), then parses the glue while V8 compiles the core
    // modules; it runs no guest code before both arrived. The close hook above ends it if the
    // scope closes meanwhile.
    const host = new JcoGuestHost({
      plugin: name,
      component: preparing.then((ready) => startCompile(ready, memoryLimitBytes)),
      preopens: readOnly,
      hostImports: hostImportsFor(options),
      callTimeoutMs: options.callTimeoutMs,
      onOutput: (_stream, text) => tail.push(text),
      // Made after the first start, of the prepared component's verified glue; the close hook
      // lets the write finish.
      onGlueCodeCache: (data) => {
        savingCodeCache = preparing.then((ready) =>
          saveGlueCodeCache({ cacheDir, dir: ready.dir, glueSha256: ready.glueSha256, data }),
        );
      },
    });
    guest = host;
    let definitions: readonly GuestToolDefinition[];
    let caller: GuestCaller = host;
    let sha256: string;
    // Set when the tools are registered from a remembered list (see register-tools.ts).
    let registeredBefore: RegisteredBefore | undefined;
    const rebuiltNote = (ready: PreparedComponent) => {
      if (ready.rebuilt === undefined) return false;
      warnings.push(`the compiled-module cache entry was rebuilt: ${ready.rebuilt}`);
      return true;
    };
    // No lookup means no list; both are tested so the lazy branch below has both.
    if (remembered === undefined || lazy === undefined) {
      const starting = host.start();
      // A failed preparation is reported from `preparing`, not as a failed start.
      starting.catch(() => {});
      // The main thread now waits on the cache entry's file reads: warm the validator engine (a
      // few ms). Here rather than after the reads, where it held back the glue's post to the
      // worker: fresh-process loads, 14 each, interleaved, median 162 vs 183 ms and 172 vs 177 ms.
      warmArgumentValidators();
      const ready = await preparing;
      prepared = true;
      // The scope closed while the component was read: its close hook ended the instance.
      if (scope.closed) return mounted;
      sha256 = ready.sha256;
      status.sha256 = sha256;
      rebuiltNote(ready);
      definitions = await starting;
      if (scope.closed) return mounted;
    } else {
      // Registered from the list; the instance starts at the first call (lazy-start.ts).
      const { macKey, key } = lazy;
      sha256 = remembered.sha256;
      status.sha256 = sha256;
      definitions = remembered.tools;
      // Forgets the remembered list once, for a schema that does not compile at its first call
      // or a start that fails: the next mount starts the guest, judges and reports again.
      let forgetting: Promise<void> | undefined;
      const forgetList = () => {
        forgetting ??= recordToolList(cacheDir, sha256, macKey, key, undefined);
        return forgetting;
      };
      registeredBefore = { unusableSchemas: remembered.unusableSchemas, forget: forgetList };
      preparing.then(
        (ready) => {
          prepared = true;
          if (rebuiltNote(ready)) publish();
        },
        () => {},
      );
      caller = startOnFirstCall({
        guest: host,
        listed: definitions,
        begin: () => begin?.(),
        changed: async (tools) => {
          await recordToolList(cacheDir, sha256, macKey, key, {
            tools,
            unusableSchemas: unusableSchemasOf(tools),
          });
          return new WasmError(
            WasmErrorCode.WASM_TOOLS_CHANGED,
            `wasm plugin ${name} now lists other tools than the ones registered from its cache; start a new session to use its current tools`,
          );
        },
        failed: async (error) => {
          // A plugin that cannot start is started at the next mount, which reports why.
          if (error.code !== WasmErrorCode.WASM_TOOLS_CHANGED) await forgetList();
          if (scope.closed) return;
          status.state = 'failed';
          status.failure = `${error.message} [${error.code}]`;
          publish();
          // Its calls all fail now: the instance (if one runs) is not needed.
          await host.close().catch(() => {});
        },
      });
    }
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
        sha256,
        projectRoot,
        dirs,
        grants: options.grants,
        guest: host,
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
    const registered = registerTools(
      options,
      caller,
      definitions,
      warnings,
      beforeCall,
      registeredBefore,
    );
    status.tools = registered.registered;
    status.state = 'connected';
    if (lazy !== undefined && remembered === undefined) {
      // A few ms, awaited: the next command, started right after this one, finds the list.
      await recordToolList(cacheDir, sha256, lazy.macKey, lazy.key, {
        tools: definitions,
        unusableSchemas: registered.unusableSchemas,
      });
    }
  } catch (error) {
    // Closed by its owner while starting (the close hook ended the instance): not a fault.
    if (scope.closed && isWasmError(error) && error.code === WasmErrorCode.WASM_CLOSED) {
      return mounted;
    }
    if (isKernelError(error) && error.code === KernelErrorCode.REGISTRY_FROZEN) {
      // Not a plugin fault: the host owns the freeze and words its report.
      await scope.close().catch(() => {});
      throw error;
    }
    status.state = 'failed';
    status.failure = isWasmError(error)
      ? `${error.message} [${error.code}]`
      : `${errorMessage(error)} [${WasmErrorCode.WASM_START_FAILED}]`;
    // Revokes whatever registered, then ends the instance (the close hook above).
    await scope.close().catch((closeError: unknown) => {
      warnings.push(`closing wasm plugin ${name} failed: ${errorMessage(closeError)}`);
    });
  }
  publish();
  return mounted;
}
