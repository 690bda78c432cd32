/**
 * Normalizes the three DSH plugin forms (bare `apply` function, `{ apply, Config, inject }`
 * object or module namespace, `class extends Service`), validates config through `Config`, and
 * checks static `inject` against what the adapter serves: every missing required service is
 * reported in one error before `apply()` runs.
 * @module
 */
import type { DisposerStack } from './disposer-stack.js';
import { SUPPORTED_SERVICES } from './dsh-context.js';
import { DshAdapterError, DshErrorCode, describeError } from './errors.js';

export type PluginKind = 'function' | 'object' | 'service';

export interface InjectDeclaration {
  required: string[];
  optional: string[];
}

export interface NormalizedPlugin {
  kind: PluginKind;
  name: string | undefined;
  inject: InjectDeclaration;
  /** Validates and returns the config (identity when the plugin exports no Config). */
  validateConfig(config: unknown): unknown;
  /** The plugin's `Config` export as given (for `clat-dsh package` to describe it). */
  config: unknown;
  /** Runs the plugin against `ctx`; its cleanups are owned by `stack`. */
  start(ctx: unknown, config: unknown, stack: DisposerStack): Promise<void>;
}

const INIT_HOOKS = Symbol.for('cordis.initHooks');
const INIT = Symbol.for('cordis.init');
const GENERIC_FUNCTION_NAMES = new Set(['', 'apply', 'default', 'anonymous']);

function isClass(value: unknown): value is new (...args: unknown[]) => unknown {
  return typeof value === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(value));
}

function readInject(value: unknown, where: string): InjectDeclaration {
  const declaration: InjectDeclaration = { required: [], optional: [] };
  if (value === undefined || value === null) return declaration;
  const add = (name: unknown, optional: boolean) => {
    if (typeof name !== 'string' || name === '') {
      throw new DshAdapterError(
        DshErrorCode.BAD_PLUGIN,
        `${where}: inject entries must be service names`,
      );
    }
    const trimmed = name.endsWith('?') ? name.slice(0, -1) : name;
    (optional || name.endsWith('?') ? declaration.optional : declaration.required).push(trimmed);
  };
  if (Array.isArray(value)) {
    for (const name of value) add(name, false);
    return declaration;
  }
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    if (Array.isArray(record.required) || Array.isArray(record.optional)) {
      for (const name of (record.required as unknown[] | undefined) ?? []) add(name, false);
      for (const name of (record.optional as unknown[] | undefined) ?? []) add(name, true);
      return declaration;
    }
    // Cordis' keyed form: { service: { required: boolean } } or { service: true }.
    for (const [name, spec] of Object.entries(record)) {
      const required =
        spec === true ||
        (typeof spec === 'object' &&
          spec !== null &&
          (spec as { required?: unknown }).required !== false);
      add(name, !required);
    }
    return declaration;
  }
  throw new DshAdapterError(DshErrorCode.BAD_PLUGIN, `${where}: inject must be an array or object`);
}

function configValidator(Config: unknown, where: string): (config: unknown) => unknown {
  if (Config === undefined || Config === null) return (config) => config;
  const parse =
    typeof Config === 'function'
      ? (config: unknown) => (Config as (value: unknown) => unknown)(config)
      : typeof (Config as { parse?: unknown }).parse === 'function'
        ? (config: unknown) => (Config as { parse(value: unknown): unknown }).parse(config)
        : undefined;
  if (parse === undefined) {
    throw new DshAdapterError(
      DshErrorCode.BAD_PLUGIN,
      `${where}: Config must be a function or a schema with parse()`,
    );
  }
  return (config) => {
    try {
      const result = parse(config);
      return result === undefined ? config : result;
    } catch (error) {
      throw new DshAdapterError(
        DshErrorCode.CONFIG_INVALID,
        `plugin config is invalid: ${describeError(error)}`,
        {
          cause: error,
        },
      );
    }
  };
}

/** Accepts whatever a plugin module or author hands over and returns one runnable shape. */
export function normalizePlugin(value: unknown): NormalizedPlugin {
  if (isClass(value)) {
    const Service = value as (new (
      ctx: unknown,
      config: unknown,
    ) => Record<symbol, unknown>) &
      Record<string, unknown>;
    return {
      kind: 'service',
      name:
        typeof Service.name === 'string' && !GENERIC_FUNCTION_NAMES.has(Service.name)
          ? Service.name
          : undefined,
      inject: readInject(Service.inject, `class ${Service.name}`),
      validateConfig: configValidator(Service.Config, `class ${Service.name}`),
      config: Service.Config,
      async start(ctx, config, stack) {
        const instance = new Service(ctx, config);
        const hooks = instance[INIT_HOOKS];
        if (Array.isArray(hooks)) {
          for (const hook of hooks)
            if (typeof hook === 'function') await stack.own(await hook.call(instance), 'init hook');
        }
        const init = instance[INIT];
        if (typeof init === 'function')
          await stack.own(init.call(instance), `${Service.name}.init`);
      },
    };
  }
  if (typeof value === 'function') {
    const apply = value as ((ctx: unknown, config: unknown) => unknown) & Record<string, unknown>;
    return {
      kind: 'function',
      name: !GENERIC_FUNCTION_NAMES.has(apply.name) ? apply.name : undefined,
      inject: readInject(apply.inject, 'plugin function'),
      validateConfig: configValidator(apply.Config, 'plugin function'),
      config: apply.Config,
      async start(ctx, config, stack) {
        await stack.own(apply(ctx, config), 'apply');
      },
    };
  }
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    if (typeof record.apply !== 'function') {
      if (record.default !== undefined && record.default !== value) {
        const inner = normalizePlugin(record.default);
        // A module namespace may carry name/inject/Config beside its default export.
        return {
          ...inner,
          name: inner.name ?? (typeof record.name === 'string' ? record.name : undefined),
          inject:
            record.inject !== undefined &&
            inner.inject.required.length + inner.inject.optional.length === 0
              ? readInject(record.inject, 'plugin module')
              : inner.inject,
          validateConfig:
            record.Config !== undefined
              ? configValidator(record.Config, 'plugin module')
              : inner.validateConfig,
          config: record.Config !== undefined ? record.Config : inner.config,
        };
      }
      throw new DshAdapterError(
        DshErrorCode.BAD_PLUGIN,
        'the plugin must be an apply function, an object with apply(), or a Service class',
      );
    }
    const apply = record.apply as (ctx: unknown, config: unknown) => unknown;
    return {
      kind: 'object',
      name: typeof record.name === 'string' && record.name !== '' ? record.name : undefined,
      inject: readInject(record.inject, 'plugin object'),
      validateConfig: configValidator(record.Config, 'plugin object'),
      config: record.Config,
      async start(ctx, config, stack) {
        await stack.own(apply.call(record, ctx, config), 'apply');
      },
    };
  }
  throw new DshAdapterError(
    DshErrorCode.BAD_PLUGIN,
    `the plugin must be an apply function, an object with apply(), or a Service class, got ${value === null ? 'null' : typeof value}`,
  );
}

/** Required services the adapter does not serve; empty when the plugin can start. */
export function missingServices(
  inject: InjectDeclaration,
  available: (name: string) => boolean,
): string[] {
  return inject.required.filter((name) => !available(name));
}

export function assertServicesAvailable(
  inject: InjectDeclaration,
  available: (name: string) => boolean,
): void {
  const missing = missingServices(inject, available);
  if (missing.length > 0) {
    throw new DshAdapterError(
      DshErrorCode.SPINE_SERVICE,
      `the plugin requires services the CLAT DSH adapter does not provide: ${missing.join(', ')} (provided: ${SUPPORTED_SERVICES.join(', ')})`,
      { data: { missing } },
    );
  }
}
