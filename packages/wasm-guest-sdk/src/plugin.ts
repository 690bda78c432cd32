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

/**
 * Builds the `tools` export. Export it under that name from the guest entry:
 * `export const tools = definePlugin({ tools: [...] })`.
 */
export function definePlugin(spec: PluginSpec): ToolsExport {
  const byName = new Map<string, ToolSpec<unknown>>();
  for (const tool of spec.tools) {
    if (byName.has(tool.name)) throw new Error(`duplicate tool name ${JSON.stringify(tool.name)}`);
    byName.set(tool.name, tool as ToolSpec<unknown>);
  }
  const definitions: ToolDefinition[] = spec.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: JSON.stringify(tool.inputSchema ?? { type: 'object' }),
    effect: tool.effect,
  }));
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
