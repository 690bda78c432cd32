/**
 * definePlugin(): turns a list of tool specs into the `tools` export of the clat:plugin world.
 * Pure JavaScript with no imports, so it runs in StarlingMonkey, QuickJS and Node alike.
 * @module
 */

/** How a tool may affect the world (WIT `types.effect`); drives CLAT's permission table. */
export type Effect =
  | 'pure'
  | 'read'
  | 'write'
  | 'execute'
  | 'network'
  | 'external-read'
  | 'destructive'
  | 'session-write';

/**
 * Every effect, in WIT order. A record so the compiler fails when the union and this list drift;
 * checked at definePlugin because an effect outside the enum traps the guest when it is lowered.
 */
const EFFECTS: Readonly<Record<Effect, true>> = {
  pure: true,
  read: true,
  write: true,
  execute: true,
  network: true,
  'external-read': true,
  destructive: true,
  'session-write': true,
};
const EFFECT_NAMES = Object.keys(EFFECTS).join(', ');

export type JsonSchema = { [key: string]: unknown };

export interface ToolSpec<Args = Record<string, unknown>> {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. Default: any object. */
  inputSchema?: JsonSchema;
  effect: Effect;
  /**
   * Runs the tool. Synchronous: host calls block the guest until the host answers. The return
   * value is sent as JSON; a thrown error becomes the tool error text.
   */
  run(args: Args): unknown;
}

export interface PluginSpec {
  // biome-ignore lint/suspicious/noExplicitAny: each tool narrows its own arguments.
  tools: readonly ToolSpec<any>[];
}

/** WIT `types.definition` as componentize-js expects it. */
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: string;
  effect: Effect;
}

/** The `tools` interface export. */
export interface ToolsExport {
  listTools(): ToolDefinition[];
  call(name: string, argsJson: string): string;
}

/** Identity helper that types a tool's arguments. */
export function defineTool<Args = Record<string, unknown>>(spec: ToolSpec<Args>): ToolSpec<Args> {
  return spec;
}

/** The message of anything thrown, including host errors (ComponentError with a payload). */
export function errorText(error: unknown): string {
  if (typeof error === 'string') return error;
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null && 'payload' in error) {
    const payload = (error as { payload: unknown }).payload;
    if (typeof payload === 'string') return payload;
  }
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

/** A value as an error message shows it: strings quoted, objects by kind (never dumped). */
function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'object' && value !== null) return 'an object';
  return String(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * The WIT definition of one tool spec, or a one-sentence error naming the tool and the field.
 * Plain JavaScript guests get no type checks, and a value the WIT types cannot carry (an effect
 * outside the enum above all) traps the whole guest when the host lists its tools; checked
 * here it fails the build instead, since componentize-js runs the guest's top level.
 */
function checkedDefinition(tool: unknown, index: number): ToolDefinition {
  if (typeof tool !== 'object' || tool === null || Array.isArray(tool)) {
    throw new Error(`the tool at index ${index} is not a tool spec object (got ${shown(tool)})`);
  }
  // Any object, not only a plain one: a class instance's `run` is inherited.
  const { name, description, effect, inputSchema, run } = tool as Record<string, unknown>;
  if (typeof name !== 'string' || name === '') {
    throw new Error(
      `the tool at index ${index}: name must be a non-empty string (got ${shown(name)})`,
    );
  }
  const label = `tool ${JSON.stringify(name)}`;
  if (typeof description !== 'string') {
    throw new Error(`${label}: description must be a string (got ${shown(description)})`);
  }
  if (typeof effect !== 'string' || !Object.hasOwn(EFFECTS, effect)) {
    throw new Error(`${label}: effect ${shown(effect)} is not one of ${EFFECT_NAMES}`);
  }
  if (inputSchema !== undefined && !isPlainObject(inputSchema)) {
    throw new Error(`${label}: inputSchema must be a plain object (got ${shown(inputSchema)})`);
  }
  if (typeof run !== 'function') {
    throw new Error(`${label}: run must be a function (got ${shown(run)})`);
  }
  let schemaText: string;
  try {
    schemaText = JSON.stringify(inputSchema ?? { type: 'object' });
  } catch (error) {
    // V8 explains a cycle over several lines; the first one says what is wrong.
    const reason = errorText(error).split('\n')[0];
    throw new Error(`${label}: inputSchema cannot be written as JSON (${reason})`);
  }
  return { name, description, inputSchema: schemaText, effect: effect as Effect };
}

/**
 * Builds the `tools` export. Export it under that name from the guest entry:
 * `export const tools = definePlugin({ tools: [...] })`. Throws one sentence naming the tool and
 * field for a spec the WIT types cannot carry (an unknown effect, a missing name or `run`, ...):
 * componentize-js runs the entry's top level, so that fails the build rather than the plugin.
 */
export function definePlugin(spec: PluginSpec): ToolsExport {
  const tools: unknown = (spec as Partial<PluginSpec> | null | undefined)?.tools;
  if (!Array.isArray(tools)) {
    throw new Error(
      `definePlugin needs { tools: [...] }, an array of tool specs (got ${shown(tools)})`,
    );
  }
  const byName = new Map<string, ToolSpec<unknown>>();
  const definitions: ToolDefinition[] = [];
  for (const [index, tool] of tools.entries()) {
    const definition = checkedDefinition(tool, index);
    if (byName.has(definition.name)) {
      throw new Error(`duplicate tool name ${JSON.stringify(definition.name)}`);
    }
    byName.set(definition.name, tool as ToolSpec<unknown>);
    definitions.push(definition);
  }
  return {
    listTools: () => definitions.map((definition) => ({ ...definition })),
    call(name, argsJson) {
      // Only strings may leave an export as err(..): anything else traps the instance.
      try {
        const tool = byName.get(name);
        if (tool === undefined) throw `unknown tool ${JSON.stringify(name)}`;
        let args: unknown;
        try {
          args = argsJson.trim() === '' ? {} : JSON.parse(argsJson);
        } catch {
          throw `arguments of ${name} are not valid JSON`;
        }
        if (typeof args !== 'object' || args === null || Array.isArray(args)) {
          throw `arguments of ${name} must be a JSON object`;
        }
        const result = tool.run(args);
        if (result !== null && typeof result === 'object' && 'then' in result) {
          throw `tool ${name} returned a Promise; guest tools must be synchronous`;
        }
        return JSON.stringify(result ?? null);
      } catch (error) {
        throw errorText(error);
      }
    },
  };
}
