/**
 * Mounting a WASM plugin: prepare (digest, transpile cache, import allowlist, memory cap), start
 * its sandboxed instance, and register its tools in the kernel registry as `wasm_{plugin}_{tool}`
 * leases on a scope. Host imports go to the HostServices port (the PluginHostBridge), within the
 * manifest's capability ceiling. Every failure is isolated in the plugin's status.
 * @module
 */
import { basename, resolve } from 'node:path';
import {
  type Approver,
  cancelledError,
  type Effect,
  type ElicitationForm,
  errorMessage,
  type HostCaller,
  type HostServices,
  isEffect,
  isJsonObject,
  type JsonObject,
  jsonDepthExceeds,
  KernelError,
  KernelErrorCode,
  type Lease,
  LIMITS,
  LineTail,
  type PermissionMode,
  qualifyToolName,
  Redactor,
  type SamplingRequest,
  type Scope,
  type Tool,
  type ToolCallContext,
  type ToolRegistry,
  type ToolResult,
} from '@clat/kernel';
import { type ArgumentValidator, compileArgumentValidator } from './argument-validator.js';
import {
  compileComponent,
  prepareComponent,
  resolveClatHome,
  wasmCacheDir,
} from './component-cache.js';
import { isWasmError, WasmError, WasmErrorCode } from './errors.js';
import type { WasmGrantStore } from './grants.js';
import {
  type GuestCallOutcome,
  type GuestToolDefinition,
  JcoGuestHost,
  type Preopen,
} from './jco-guest-host.js';
import type { WasmCapabilities } from './plugins-json.js';
import { overlapsOwned } from './preopen-overlap.js';

export const WASM_PROTOCOL_PATH = 'clat-wit/0.1.0';
export const WASM_PROTOCOL_MANIFEST = 'clat-plugin-manifest/1';
/** The guest's name for the project directory preopen. */
export const PROJECT_PREOPEN = 'project';

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
  /** Default: `$CLAT_HOME`, else `~/.clat`. */
  clatHome?: string | undefined;
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

interface WriteAccess {
  sha256: string;
  /** The mode the preopens were last built for (null: no run). */
  mode: PermissionMode | null;
  /** Directory sets allowed by the user during this process. */
  sessionGrants: string[][];
  /** The directories a write grant covers in `mode`: the project, plus `dirs` in Full Access. */
  requestedDirs(mode: PermissionMode | null): string[];
  granted(dirs: readonly string[]): boolean;
  /** Rebuilds the instance if the preopens for `mode` differ from the current ones. */
  apply(mode: PermissionMode | null): Promise<void>;
}

/**
 * Guest names of the extra directories: the basename with characters outside `[A-Za-z0-9_]` as
 * `-`, trimmed of `-`; `dirN` (N = its index) when that is empty or already taken.
 */
export function guestDirNames(dirs: readonly string[]): string[] {
  const taken = new Set([PROJECT_PREOPEN]);
  return dirs.map((dir, index) => {
    let name = basename(dir)
      .replace(/[^A-Za-z0-9_]/g, '-')
      .replace(/^-+|-+$/g, '');
    for (let n = index; name === '' || taken.has(name); n++) name = `dir${n}`;
    taken.add(name);
    return name;
  });
}

function createWriteAccess(options: {
  name: string;
  sha256: string;
  projectRoot: string;
  dirs: string[];
  grants: WasmGrantStore | undefined;
  guest: JcoGuestHost;
  onChange: (writable: boolean) => void;
}): WriteAccess {
  const { name, sha256, projectRoot, dirs, grants, guest } = options;
  const guestNames = guestDirNames(dirs);
  const access: WriteAccess = {
    sha256,
    mode: null,
    sessionGrants: [],
    requestedDirs: (mode) =>
      mode === 'full-access' ? [projectRoot, ...dirs].sort() : [projectRoot],
    granted: (wanted) =>
      grants?.covers(name, sha256, wanted) === true ||
      access.sessionGrants.some((set) => wanted.every((dir) => set.includes(dir))),
    async apply(mode) {
      access.mode = mode;
      let writable: string[] = [];
      if (mode !== 'read-only') {
        const wanted = access.requestedDirs(mode);
        if (access.granted(wanted)) writable = wanted;
        else if (access.granted([projectRoot])) writable = [projectRoot];
      }
      const next: Preopen[] = [
        {
          guestPath: PROJECT_PREOPEN,
          hostPath: projectRoot,
          writable: writable.includes(projectRoot),
        },
        ...dirs
          .filter((dir) => writable.includes(dir))
          .map((dir) => ({
            guestPath: guestNames[dirs.indexOf(dir)] as string,
            hostPath: dir,
            writable: true,
          })),
      ];
      if (JSON.stringify(next) !== JSON.stringify(guest.preopens)) await guest.setPreopens(next);
      options.onChange(next.some((preopen) => preopen.writable));
    },
  };
  return access;
}

/** Maps a guest outcome (of the tool named `tool`) to what the model reads. */
export function toolResultOf(outcome: GuestCallOutcome, tool = 'the tool'): ToolResult {
  if (outcome.kind !== 'ok') return { content: outcome.message, isError: true };
  let parsed: unknown;
  try {
    parsed = JSON.parse(outcome.value);
  } catch {
    return { content: outcome.value };
  }
  if (typeof parsed === 'string') return { content: parsed };
  // Every consumer of `structured` (JSON output, redaction, schemas) walks it recursively.
  if (jsonDepthExceeds(parsed, LIMITS.toolResultDepth)) {
    return {
      content: `${tool} returned JSON nested more than ${LIMITS.toolResultDepth} levels deep (the limit); its result was refused`,
      isError: true,
    };
  }
  return { content: outcome.value, structured: parsed };
}

/** Every string value inside a configuration (candidates for redaction). */
function configStrings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(configStrings);
  if (typeof value === 'object' && value !== null)
    return Object.values(value).flatMap(configStrings);
  return [];
}

function denyCapability(plugin: string, capability: string): never {
  throw `${WasmErrorCode.WASM_CAPABILITY_NOT_DECLARED}: plugin ${JSON.stringify(plugin)} does not declare capability \`${capability}\``;
}

function toSamplingRequest(raw: unknown): SamplingRequest {
  const request = raw as {
    systemPrompt?: string;
    messages: { role: 'user' | 'assistant'; text: string }[];
    maxTokens: bigint | number;
    temperature?: number;
  };
  const max = BigInt(request.maxTokens);
  return {
    messages: request.messages.map((message) => ({ role: message.role, text: message.text })),
    maxTokens: Number(max > 0xffffffffn ? 0xffffffffn : max),
    ...(request.systemPrompt === undefined ? {} : { systemPrompt: request.systemPrompt }),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
  };
}

function toElicitationForm(raw: unknown): ElicitationForm {
  const form = raw as ElicitationForm;
  return {
    message: form.message,
    fields: form.fields.map((field) => ({
      name: field.name,
      kind: field.kind,
      options: [...field.options],
      required: field.required,
      ...(field.title === undefined ? {} : { title: field.title }),
      ...(field.description === undefined ? {} : { description: field.description }),
      ...(field.default === undefined ? {} : { default: field.default }),
    })),
  };
}

/** Builds the main-thread side of the guest's host imports. */
function hostImportsFor(options: MountWasmPluginOptions) {
  const { name, hostServices: host, capabilities } = options;
  const caller: HostCaller = { kind: 'wasm', id: name };
  const configJson = options.config === undefined ? undefined : JSON.stringify(options.config);
  return async (iface: string, fn: string, args: unknown[], signal: AbortSignal) => {
    switch (`${iface}.${fn}`) {
      case 'host.context':
        if (capabilities !== undefined && !capabilities.hostContext) {
          denyCapability(name, 'hostContext');
        }
        return JSON.stringify(await host.context(caller));
      case 'host.callTool': {
        const [tool, argsJson] = args as [string, string];
        if (capabilities !== undefined && !capabilities.hostTools.includes(tool)) {
          denyCapability(name, `hostTools.${tool}`);
        }
        let parsed: unknown;
        try {
          parsed = argsJson.trim() === '' ? {} : JSON.parse(argsJson);
        } catch {
          throw `${KernelErrorCode.HOST_INVALID_REQUEST}: arguments of host tool ${JSON.stringify(tool)} are not valid JSON`;
        }
        const result = await host.callTool(caller, tool, parsed, signal);
        return JSON.stringify(result ?? null);
      }
      case 'sampling.createMessage':
        if (capabilities !== undefined && !capabilities.sampling) denyCapability(name, 'sampling');
        return host.createMessage(caller, toSamplingRequest(args[0]), signal);
      case 'elicitation.elicit':
        if (capabilities !== undefined && !capabilities.elicitation) {
          denyCapability(name, 'elicitation');
        }
        return host.elicit(caller, toElicitationForm(args[0]), signal);
      case 'config.get':
        if (configJson === undefined)
          throw `no configuration is set for plugin ${JSON.stringify(name)}`;
        return configJson;
      default:
        throw `unknown host import ${iface}.${fn}`;
    }
  };
}

/**
 * Mounts one WASM plugin. Never throws for plugin faults: a plugin that cannot load ends in state
 * `failed` with the reason, and registers nothing.
 */
export async function mountWasmPlugin(options: MountWasmPluginOptions): Promise<MountedWasmPlugin> {
  const { name, scope } = options;
  const clatHome = options.clatHome ?? resolveClatHome();
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
    const compiled = await compileComponent(
      prepared,
      options.memoryLimitBytes ?? LIMITS.wasmMemoryBytes,
    );
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
    const definitions = await guest.start();
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

function registerTools(
  options: MountWasmPluginOptions,
  guest: JcoGuestHost,
  definitions: GuestToolDefinition[],
  status: WasmPluginStatus,
  leases: Lease[],
  beforeCall: ((ctx: ToolCallContext, effect: Effect) => Promise<void>) | undefined,
): void {
  const { name, registry, scope } = options;
  const note = (message: string) => status.notes.push(message);
  if (definitions.length > LIMITS.toolsPerServer) {
    note(
      `plugin lists ${definitions.length} tools; only the first ${LIMITS.toolsPerServer} are registered`,
    );
  }
  for (const definition of definitions.slice(0, LIMITS.toolsPerServer)) {
    let qualified: string;
    try {
      qualified = qualifyToolName('wasm', name, definition.name);
    } catch (error) {
      note(`tool ${JSON.stringify(definition.name)} skipped: ${errorMessage(error)}`);
      continue;
    }
    let schema: unknown;
    try {
      schema = JSON.parse(definition.inputSchema);
    } catch {
      note(`tool ${JSON.stringify(definition.name)} skipped: its input-schema is not valid JSON`);
      continue;
    }
    if (!isJsonObject(schema)) {
      note(
        `tool ${JSON.stringify(definition.name)} skipped: its input-schema is not a JSON object`,
      );
      continue;
    }
    let validate: ArgumentValidator;
    try {
      validate = compileArgumentValidator(schema);
    } catch (error) {
      note(
        `tool ${JSON.stringify(definition.name)} skipped: its input-schema is not a usable JSON Schema (${errorMessage(error)})`,
      );
      continue;
    }
    if (!isEffect(definition.effect)) {
      note(
        `tool ${JSON.stringify(definition.name)} skipped: unknown effect ${JSON.stringify(definition.effect)}`,
      );
      continue;
    }
    const toolName = definition.name;
    const toolEffect = definition.effect;
    const tool: Tool = {
      definition: {
        name: qualified,
        description: `[wasm:${name}] ${definition.description}`,
        inputSchema: schema as JsonObject,
        effect: definition.effect,
        source: { kind: 'wasm', id: name },
        sourceName: toolName,
      },
      invoke: async (args, ctx) => {
        // Before any grant prompt or guest call: a guest only ever sees arguments it declared.
        const problem = validate(args);
        if (problem !== undefined) {
          throw new KernelError(
            KernelErrorCode.TOOL_INVALID_ARGUMENTS,
            `invalid arguments for ${qualified}: ${problem}`,
          );
        }
        let outcome: GuestCallOutcome;
        try {
          await beforeCall?.(ctx, toolEffect);
          outcome = await guest.call(toolName, JSON.stringify(args), ctx.signal);
        } catch (error) {
          if (isWasmError(error)) return { content: error.message, isError: true };
          throw error;
        }
        if (outcome.kind === 'cancelled') {
          throw ctx.signal.aborted
            ? cancelledError(ctx.signal, `wasm tool ${qualified}`)
            : new KernelError(KernelErrorCode.CANCELLED, outcome.message);
        }
        return toolResultOf(outcome, `tool ${qualified}`);
      },
    };
    try {
      leases.push(registry.register(tool, scope));
      status.tools++;
    } catch (error) {
      note(errorMessage(error));
    }
  }
}
