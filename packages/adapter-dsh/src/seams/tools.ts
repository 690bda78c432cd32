/**
 * `ctx.tools.register(defineTool(...))`: compiled DSH tool definitions, kept with their JSON
 * Schema, and the author's effect hints turned into MCP annotations.
 * @module
 */
import { isJsonObject } from '@clat/kernel';
import * as z from 'zod';
import { DshAdapterError, DshErrorCode } from '../errors.js';

export interface ToolRunContext {
  readonly callId: string;
  readonly name: string;
  readonly arguments: unknown;
  readonly signal: AbortSignal;
  deferContext(context: unknown): void;
  concludeTurn(): void;
}

export interface ContentBlockLike {
  type: string;
  [key: string]: unknown;
}

/** What DSH's `defineTool()` returns: `parameters` is already JSON Schema. */
export interface DshToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  output: { render(args: unknown, value: unknown): ContentBlockLike[]; [key: string]: unknown };
  execute(args: unknown, exec: ToolRunContext): Promise<unknown> | unknown;
  timeoutMs?: number;
  [key: string]: unknown;
}

/** Author-declared effect of a tool. Omitted means destructive. */
export type ToolHint = 'read-only' | 'network' | 'write' | 'destructive';

export const TOOL_HINTS: readonly ToolHint[] = ['read-only', 'network', 'write', 'destructive'];

export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  openWorldHint?: boolean;
}

/**
 * The annotations a hint sends (clat-original §8). `destructive` and a missing hint send none, so
 * CLAT lands on Destructive rather than trusting a default.
 */
export function annotationsForHint(hint: ToolHint | undefined): ToolAnnotations | undefined {
  switch (hint) {
    case 'read-only':
      return { readOnlyHint: true, openWorldHint: false };
    case 'network':
      return { readOnlyHint: true, openWorldHint: true };
    case 'write':
      return { readOnlyHint: false, destructiveHint: false, openWorldHint: false };
    default:
      return undefined;
  }
}

/** A tool as the server lists and calls it (plugin-registered or built-in). */
export interface ServedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations: ToolAnnotations | undefined;
  execute(args: Record<string, unknown>, exec: ToolRunContext): Promise<unknown> | unknown;
  render(args: Record<string, unknown>, value: unknown): unknown;
  /** The definition's own deadline, if it declares one. */
  timeoutMs: number | undefined;
  builtin: boolean;
}

export class ToolsService {
  readonly #tools = new Map<string, ServedTool>();
  readonly #hints: Readonly<Record<string, ToolHint>>;
  readonly #track: (dispose: () => unknown, label: string) => void;

  constructor(
    hints: Readonly<Record<string, ToolHint>>,
    track: (dispose: () => unknown, label: string) => void,
  ) {
    this.#hints = hints;
    this.#track = track;
  }

  register(definition: DshToolDefinition): () => void {
    const tool = this.#validate(definition);
    if (this.#tools.has(tool.name)) {
      throw new DshAdapterError(
        DshErrorCode.DUPLICATE_TOOL,
        `tool ${tool.name} is already registered`,
      );
    }
    this.#tools.set(tool.name, tool);
    let active = true;
    const dispose = () => {
      if (!active) return;
      active = false;
      if (this.#tools.get(tool.name) === tool) this.#tools.delete(tool.name);
    };
    this.#track(dispose, `tool ${tool.name}`);
    return dispose;
  }

  get(name: string): ServedTool | undefined {
    return this.#tools.get(name);
  }

  has(name: string): boolean {
    return this.#tools.has(name);
  }

  list(): ServedTool[] {
    return [...this.#tools.values()];
  }

  #validate(definition: DshToolDefinition): ServedTool {
    if (!isJsonObject(definition)) {
      throw new DshAdapterError(
        DshErrorCode.BAD_TOOL_DEFINITION,
        'tools.register needs a tool definition object',
      );
    }
    const { name } = definition;
    if (typeof name !== 'string' || name.trim() === '') {
      throw new DshAdapterError(
        DshErrorCode.BAD_TOOL_DEFINITION,
        'a tool definition needs a non-empty name',
      );
    }
    const parameters = definition.parameters;
    if (!isJsonObject(parameters) || parameters.type !== 'object') {
      throw new DshAdapterError(
        DshErrorCode.UNCOMPILED_PARAMETERS,
        `tool ${name}: parameters must be a compiled JSON Schema with type "object" (register the result of defineTool())`,
      );
    }
    if (typeof definition.execute !== 'function') {
      throw new DshAdapterError(
        DshErrorCode.BAD_TOOL_DEFINITION,
        `tool ${name} has no execute function`,
      );
    }
    const output = definition.output;
    if (!isJsonObject(output) || typeof output.render !== 'function') {
      throw new DshAdapterError(
        DshErrorCode.BAD_TOOL_DEFINITION,
        `tool ${name} has no output.render function`,
      );
    }
    for (const hook of ['projectContent', 'finalizeContent'] as const) {
      if (definition[hook] !== undefined || output[hook] !== undefined) {
        throw new DshAdapterError(
          DshErrorCode.UNSUPPORTED_TOOL_PROJECTION,
          `tool ${name} uses ${hook}, which an MCP result cannot honour`,
        );
      }
    }
    const render = output.render as DshToolDefinition['output']['render'];
    return {
      name,
      description: typeof definition.description === 'string' ? definition.description : '',
      inputSchema: structuredClone(parameters),
      annotations: annotationsForHint(this.#hints[name]),
      execute: (args, exec) => definition.execute.call(definition, args, exec),
      render: (args, value) => render.call(output, args, value),
      timeoutMs:
        typeof definition.timeoutMs === 'number' && definition.timeoutMs > 0
          ? definition.timeoutMs
          : undefined,
      builtin: false,
    };
  }
}

/** What `defineTool` accepts: JSON Schema parameters, or a zod object schema (validated on call). */
export interface ToolSpec<Args, Result> {
  name: string;
  description: string;
  parameters: Record<string, unknown> | z.ZodType<Args>;
  execute(args: Args, exec: ToolRunContext): Promise<Result> | Result;
  /** Content blocks for the model; defaults to the JSON text of the result. */
  render?(args: Args, value: Result): ContentBlockLike[];
  timeoutMs?: number;
}

/**
 * DSH's `defineTool()` for plugins written against this adapter: compiles a zod schema to JSON
 * Schema (and validates arguments with it), and supplies the default JSON-text render.
 */
export function defineTool<Args = Record<string, unknown>, Result = unknown>(
  spec: ToolSpec<Args, Result>,
): DshToolDefinition {
  // Duck-typed: a plugin's bundled zod copy is a different class than ours.
  const candidate = spec.parameters as { _zod?: unknown; safeParse?: unknown };
  const schema =
    typeof candidate._zod === 'object' && typeof candidate.safeParse === 'function'
      ? (spec.parameters as z.ZodType<Args>)
      : undefined;
  const parameters =
    schema === undefined
      ? (spec.parameters as Record<string, unknown>)
      : (z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<
          string,
          unknown
        >);
  delete parameters.$schema;
  const parse = (args: unknown): Args => {
    if (schema === undefined) return args as Args;
    const parsed = schema.safeParse(args);
    if (!parsed.success) {
      throw new DshAdapterError(
        DshErrorCode.BAD_REQUEST,
        `invalid arguments for ${spec.name}: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ')}`,
      );
    }
    return parsed.data;
  };
  const render =
    spec.render ??
    ((_args: Args, value: Result): ContentBlockLike[] => [
      { type: 'text', text: typeof value === 'string' ? value : (JSON.stringify(value) ?? '') },
    ]);
  return {
    name: spec.name,
    description: spec.description,
    parameters,
    ...(spec.timeoutMs === undefined ? {} : { timeoutMs: spec.timeoutMs }),
    output: { render: (args, value) => render(args as Args, value as Result) },
    execute: (args, exec) => spec.execute(parse(args), exec),
  };
}
