/**
 * The `ctx` a DSH plugin's `apply()` receives: a Proxy over the seams this adapter serves plus
 * Cordis' process-local basics (services, effects, inject, events, logger). An unknown service
 * throws SPINE_SERVICE naming it, so a plugin never silently runs against a missing seam.
 * @module
 */
import { formatWithOptions } from 'node:util';
import { DisposerStack } from './disposer-stack.js';
import { DshAdapterError, DshErrorCode, describeError } from './errors.js';
import { EventBus } from './event-bus.js';
import type { HostLink } from './host-link.js';
import {
  type ClatHostService,
  createAgentsService,
  createClatHostService,
  createFileSystemService,
  createSessionsService,
  createShellService,
  type FileSystemService,
  type ShellService,
} from './seams/host-seams.js';
import { createLlmService, type LlmService } from './seams/llm.js';
import { createUserQuestionsService, type UserQuestionsService } from './seams/questions.js';
import { type ServedTool, type ToolHint, ToolsService } from './seams/tools.js';
import { WebService } from './seams/web.js';
import { SystemPromptService } from './system-prompt.js';

/** Services a plugin may `inject`, each backed by a seam of this adapter. */
export const SUPPORTED_SERVICES = [
  'tools',
  'llm',
  'userQuestions',
  'web',
  'systemPrompt',
  'clat',
  'fs',
  'shell',
  'sessions',
  'agents',
] as const;

export type SupportedService = (typeof SUPPORTED_SERVICES)[number];

/** Cordis basics every ctx has; never injected, always present. */
export const CORE_MEMBERS = [
  'reflect',
  'logger',
  'get',
  'set',
  'provide',
  'effect',
  'inject',
  'on',
  'once',
  'emit',
  'parallel',
  'serial',
  'bail',
  'waterfall',
] as const;

/** Keys that must read as absent so the ctx is not mistaken for a promise or JSON value. */
const INERT_KEYS = new Set([
  'then',
  'toJSON',
  'constructor',
  'inspect',
  'valueOf',
  'toString',
  'asymmetricMatch',
  'nodeType',
  '$$typeof',
]);

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'success';

export interface DshLogger {
  (name?: string): DshLogger;
  debug(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
  success(...args: unknown[]): void;
}

/** Writes one diagnostic line to stderr (never stdout: stdout is the protocol). */
export type LogSink = (line: string) => void;

export function createLogger(sink: LogSink, name: string): DshLogger {
  const write = (level: LogLevel, args: unknown[]) => {
    sink(`[dsh:${name}] ${level} ${formatWithOptions({ colors: false, depth: 4 }, ...args)}`);
  };
  const logger = ((child?: string) =>
    createLogger(sink, child === undefined || child === '' ? name : child)) as DshLogger;
  logger.debug = (...args) => write('debug', args);
  logger.info = (...args) => write('info', args);
  logger.warn = (...args) => write('warn', args);
  logger.error = (...args) => write('error', args);
  logger.success = (...args) => write('success', args);
  return logger;
}

/** What `clat-dsh inspect` learns by running apply: every ctx member touched, and the misses. */
export interface SeamRecorder {
  accessed: Set<string>;
  missing: Set<string>;
}

export interface DshRuntimeOptions {
  name: string;
  toolHints: Readonly<Record<string, ToolHint>>;
  env: Readonly<Record<string, string | undefined>>;
  log: LogSink;
  link: HostLink;
  /** Default `{{cwd}}` of the system prompt when the host passes none. */
  defaultCwd: () => string;
  recorder?: SeamRecorder;
}

export interface InjectHandle extends PromiseLike<{ dispose(): Promise<void> }> {
  dispose(): Promise<void>;
}

export type DshContext = Record<string, unknown>;

type Listener = (...args: never[]) => unknown;

/**
 * The typed view of `ctx` for plugin authors writing against this adapter. At runtime `ctx` is a
 * Proxy: any member not listed here throws SPINE_SERVICE.
 */
export interface DshPluginContext {
  readonly tools: Pick<ToolsService, 'register'>;
  readonly llm: LlmService;
  readonly userQuestions: UserQuestionsService;
  readonly web: Pick<
    WebService,
    'registerSearchProvider' | 'registerFetchProvider' | 'search' | 'fetch'
  >;
  readonly systemPrompt: Pick<
    SystemPromptService,
    'section' | 'context' | 'suppressRuntimeContext' | 'tools' | 'variable' | 'assemble'
  >;
  readonly clat: ClatHostService;
  readonly fs: FileSystemService;
  readonly shell: ShellService;
  readonly logger: DshLogger;
  get(key: string): unknown;
  set(key: string, value: unknown): () => void;
  provide(key: string, value?: unknown, check?: () => boolean): () => void;
  effect(setup: () => unknown, label?: string): (() => Promise<void>) & PromiseLike<void>;
  inject(deps: string | string[], callback: (ctx: DshPluginContext) => unknown): InjectHandle;
  on(name: string | symbol, listener: Listener, prepend?: boolean): () => boolean;
  once(name: string | symbol, listener: Listener, prepend?: boolean): () => boolean;
  emit(...input: unknown[]): void;
  parallel(...input: unknown[]): Promise<void>;
  serial(...input: unknown[]): Promise<unknown>;
  bail(...input: unknown[]): unknown;
  waterfall(...input: unknown[]): unknown;
}

export class DshRuntime {
  readonly stack = new DisposerStack();
  readonly events: EventBus;
  readonly tools: ToolsService;
  readonly web: WebService;
  readonly systemPrompt: SystemPromptService;
  readonly logger: DshLogger;
  readonly ctx: DshContext;
  readonly #services = new Map<string, unknown>();
  readonly #provided = new Map<string, unknown>();
  readonly #recorder: SeamRecorder | undefined;

  constructor(options: DshRuntimeOptions) {
    const { link } = options;
    this.#recorder = options.recorder;
    this.logger = createLogger(options.log, options.name);
    const track = (dispose: () => unknown, label: string) => this.stack.push(dispose, label);
    this.events = new EventBus((event, error) =>
      this.logger.warn(`listener of ${event} failed: ${describeError(error)}`),
    );
    this.tools = new ToolsService(options.toolHints, track);
    this.web = new WebService(options.env, track);
    this.systemPrompt = new SystemPromptService({
      events: this.events,
      track,
      defaultCwd: options.defaultCwd,
    });
    const warn = (message: string) => this.logger.warn(message);
    const services: Record<SupportedService, unknown> = {
      tools: this.tools,
      llm: createLlmService(link, warn),
      userQuestions: createUserQuestionsService(link),
      web: this.web,
      systemPrompt: this.systemPrompt,
      clat: createClatHostService(link),
      fs: createFileSystemService(link),
      shell: createShellService(link),
      sessions: createSessionsService(link),
      agents: createAgentsService(link, () => this.ctx),
    };
    for (const [key, value] of Object.entries(services)) this.#services.set(key, bindAll(value));
    this.#services.set('reflect', {
      get: (key: string) => this.#get(key),
      set: (key: string, value: unknown) => this.#set(key, value),
      provide: (key: string, value?: unknown, check?: () => boolean) =>
        this.#provide(key, value, check),
    });
    this.#services.set('logger', this.logger);
    this.#services.set('get', (key: string) => this.#get(key));
    this.#services.set('set', (key: string, value: unknown) => this.#set(key, value));
    this.#services.set('provide', (key: string, value?: unknown, check?: () => boolean) =>
      this.#provide(key, value, check),
    );
    this.#services.set('effect', (setup: () => unknown, label?: string) =>
      this.#effect(setup, label),
    );
    this.#services.set(
      'inject',
      (deps: string | string[], callback: (ctx: DshContext) => unknown) =>
        this.#inject(deps, callback),
    );
    for (const method of [
      'on',
      'once',
      'emit',
      'parallel',
      'serial',
      'bail',
      'waterfall',
    ] as const) {
      this.#services.set(
        method,
        (this.events[method] as (...args: unknown[]) => unknown).bind(this.events),
      );
    }
    this.ctx = this.#createProxy();
  }

  /** True when `name` is a service this ctx can hand out now. */
  isAvailable(name: string): boolean {
    return this.#services.has(name) || this.#provided.has(name);
  }

  /** Tools as served: plugin tools first, then built-ins whose name no plugin tool took. */
  servedTools(): ServedTool[] {
    const own = this.tools.list();
    const builtins = this.web.builtinTools().filter((tool) => !this.tools.has(tool.name));
    return [...own, ...builtins];
  }

  findTool(name: string): ServedTool | undefined {
    return this.tools.get(name) ?? this.web.builtinTools().find((tool) => tool.name === name);
  }

  async dispose(): Promise<void> {
    const failures = await this.stack.dispose();
    for (const failure of failures)
      this.logger.error(`[${failure.error.code}] ${failure.error.message}`);
    this.events.clear();
  }

  #createProxy(): DshContext {
    const runtime = this;
    const target: DshContext = Object.create(null);
    return new Proxy(target, {
      get(_target, key) {
        if (typeof key === 'symbol' || INERT_KEYS.has(key)) return undefined;
        runtime.#recorder?.accessed.add(key);
        if (runtime.#services.has(key)) return runtime.#services.get(key);
        if (runtime.#provided.has(key)) return runtime.#provided.get(key);
        runtime.#recorder?.missing.add(key);
        throw new DshAdapterError(
          DshErrorCode.SPINE_SERVICE,
          `ctx.${key} is not provided by the CLAT DSH adapter (available: ${[...SUPPORTED_SERVICES, ...CORE_MEMBERS].join(', ')})`,
        );
      },
      has(_target, key) {
        return typeof key === 'string' && runtime.isAvailable(key);
      },
      set(_target, key, value) {
        if (typeof key === 'symbol') return false;
        runtime.#set(key, value);
        return true;
      },
      ownKeys() {
        return [...runtime.#services.keys(), ...runtime.#provided.keys()];
      },
      getOwnPropertyDescriptor(_target, key) {
        if (typeof key !== 'string' || !runtime.isAvailable(key)) return undefined;
        return { configurable: true, enumerable: true, writable: false, value: runtime.#get(key) };
      },
    });
  }

  #get(key: string): unknown {
    if (this.#services.has(key)) return this.#services.get(key);
    return this.#provided.get(key);
  }

  #set(key: string, value: unknown): () => void {
    if (this.#services.has(key)) {
      throw new DshAdapterError(
        DshErrorCode.BAD_CONTEXT,
        `ctx.${key} is a built-in service and cannot be replaced`,
      );
    }
    this.#provided.set(key, value);
    return this.#removal(key, value);
  }

  #provide(key: string, value?: unknown, check?: () => boolean): () => void {
    if (typeof key !== 'string' || key === '') {
      throw new DshAdapterError(DshErrorCode.BAD_CONTEXT, 'provide needs a non-empty service name');
    }
    if (this.#services.has(key) || this.#provided.has(key)) {
      throw new DshAdapterError(DshErrorCode.BAD_CONTEXT, `service ${key} is already provided`);
    }
    if (check !== undefined && check() === false) return () => {};
    this.#provided.set(key, value);
    return this.#removal(key, value);
  }

  #removal(key: string, value: unknown): () => void {
    let active = true;
    const dispose = () => {
      if (!active) return;
      active = false;
      if (this.#provided.get(key) === value) this.#provided.delete(key);
    };
    this.stack.push(dispose, `service ${key}`);
    return dispose;
  }

  #effect(setup: () => unknown, label = 'effect'): (() => Promise<void>) & PromiseLike<void> {
    if (typeof setup !== 'function')
      throw new DshAdapterError(DshErrorCode.BAD_CONTEXT, 'effect needs a setup function');
    const child = new DisposerStack();
    const ready = Promise.resolve()
      .then(() => child.own(setup(), label))
      .catch((error: unknown) => {
        this.logger.error(`effect ${label} failed: ${describeError(error)}`);
        throw error;
      });
    ready.catch(() => {});
    const dispose = async () => {
      await ready.catch(() => {});
      for (const failure of await child.dispose()) this.logger.error(failure.error.message);
    };
    this.stack.push(dispose, label);
    const handle = dispose as (() => Promise<void>) & PromiseLike<void>;
    Object.defineProperty(handle, 'then', {
      value: (resolve?: (value: undefined) => unknown, reject?: (reason: unknown) => unknown) =>
        ready.then(() => undefined).then(resolve, reject),
    });
    return handle;
  }

  #inject(deps: string | string[], callback: (ctx: DshContext) => unknown): InjectHandle {
    const names = typeof deps === 'string' ? [deps] : Array.isArray(deps) ? deps : [];
    const missing = names.filter((name) => !this.isAvailable(name));
    const child = new DisposerStack();
    const dispose = async () => {
      for (const failure of await child.dispose()) this.logger.error(failure.error.message);
    };
    let ready: Promise<void> = Promise.resolve();
    if (missing.length > 0) {
      this.logger.warn(`inject skipped: ${missing.join(', ')} not mounted`);
    } else {
      this.stack.push(dispose, 'inject');
      ready = Promise.resolve()
        .then(() => child.own(callback(this.ctx), 'inject'))
        .catch((error: unknown) => {
          this.logger.error(`inject callback failed: ${describeError(error)}`);
        });
    }
    const settled = { dispose };
    // An awaitable fiber like Cordis' inject(): `await ctx.inject(...)` waits for the callback.
    const handle = { dispose } as InjectHandle;
    Object.defineProperty(handle, 'then', {
      value: (
        resolve?: (value: { dispose(): Promise<void> }) => unknown,
        reject?: (reason: unknown) => unknown,
      ) => ready.then(() => settled).then(resolve, reject),
    });
    return handle;
  }
}

/** Binds a service object's methods so plugins may destructure them. */
function bindAll<T>(service: T): T {
  if (typeof service !== 'object' || service === null) return service;
  const proto = Object.getPrototypeOf(service);
  if (proto === Object.prototype || proto === null) return service;
  const bound: Record<string, unknown> = {};
  for (const key of Object.getOwnPropertyNames(proto)) {
    if (key === 'constructor') continue;
    const value = (service as Record<string, unknown>)[key];
    if (typeof value === 'function') bound[key] = value.bind(service);
  }
  return Object.assign(Object.create(service as object), bound) as T;
}
