/**
 * Registering a WASM plugin's tools in the kernel registry as `wasm_{plugin}_{tool}` leases,
 * skipping (with a note) every definition that cannot be used, and mapping guest outcomes to
 * tool results. Input schemas compile at registration, or, for a list registered before
 * (tool-list-memo.ts), at each tool's first call, with the schemas that registration found
 * unusable skipped again.
 * @module
 */

import { type ArgumentValidator, compileArgumentValidator } from '@clat/json-schema';
import {
  cancelledError,
  type Effect,
  errorMessage,
  isEffect,
  isJsonObject,
  isKernelError,
  type JsonObject,
  jsonDepthExceeds,
  KernelError,
  KernelErrorCode,
  LIMITS,
  qualifyToolName,
  type Tool,
  type ToolCallContext,
  type ToolResult,
} from '@clat/kernel';
import { isWasmError } from './errors.js';
import type { GuestCallOutcome, GuestToolDefinition } from './guest-host-contract.js';
import type { GuestCaller } from './lazy-start.js';
import type { MountWasmPluginOptions } from './mount.js';

/** A list registered before: what its registration found, and how to forget the list. */
export interface RegisteredBefore {
  /** Input schema text → why it is not a usable JSON Schema. */
  unusableSchemas: ReadonlyMap<string, string>;
  /**
   * Called when a schema compiled at a first call is unusable after all (another Ajv judged the
   * list): forgets the list, so the next mount lists and judges again. Never rejects.
   */
  forget(): Promise<void>;
}

export interface RegisteredTools {
  registered: number;
  /** The input schemas found (or, for a list registered before, known) unusable, with why. */
  unusableSchemas: ReadonlyMap<string, string>;
}

/**
 * A tool's argument validator, or why its input schema is unusable (and the list being forgotten
 * for it); compiled on first use.
 */
type ValidatorOf = () => ArgumentValidator | { unusable: string; forgotten: Promise<void> };

/** A schema's parsed JSON object, or the note why the definition is skipped. */
function parsedSchema(definition: GuestToolDefinition): JsonObject | string {
  let schema: unknown;
  try {
    schema = JSON.parse(definition.inputSchema);
  } catch {
    return `tool ${JSON.stringify(definition.name)} skipped: its input-schema is not valid JSON`;
  }
  if (!isJsonObject(schema)) {
    return `tool ${JSON.stringify(definition.name)} skipped: its input-schema is not a JSON object`;
  }
  return schema;
}

const unusableNote = (definition: GuestToolDefinition, reason: string) =>
  `tool ${JSON.stringify(definition.name)} skipped: its input-schema is not a usable JSON Schema (${reason})`;

/**
 * The input schemas of `definitions` (as many as a registration takes) that are not usable JSON
 * Schemas, with why: what {@link registerTools} finds when it compiles them. For a list the
 * guest gave while its tools were registered from another one, so that it is remembered with
 * its verdicts.
 */
export function unusableSchemasOf(
  definitions: readonly GuestToolDefinition[],
): Map<string, string> {
  const unusable = new Map<string, string>();
  const seen = new Set<string>();
  for (const definition of definitions.slice(0, LIMITS.toolsPerServer)) {
    if (seen.has(definition.inputSchema)) continue;
    seen.add(definition.inputSchema);
    const schema = parsedSchema(definition);
    if (typeof schema === 'string') continue;
    try {
      compileArgumentValidator(schema);
    } catch (error) {
      unusable.set(definition.inputSchema, errorMessage(error));
    }
  }
  return unusable;
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

/**
 * Registers the usable tools of `definitions` as leases on the plugin's scope (which revokes
 * them) and returns how many registered and which schemas are unusable; each skipped one leaves
 * a note in `warnings`. Without `before`, every schema compiles now; with it (the same list,
 * registered before), the schemas it found unusable are skipped with the same note and the others
 * compile at their tool's first call. A frozen registry's REGISTRY_FROZEN error propagates.
 */
export function registerTools(
  options: MountWasmPluginOptions,
  guest: GuestCaller,
  definitions: readonly GuestToolDefinition[],
  warnings: string[],
  beforeCall: ((ctx: ToolCallContext, effect: Effect) => Promise<void>) | undefined,
  before?: RegisteredBefore,
): RegisteredTools {
  const { name, registry, scope } = options;
  const note = (message: string) => warnings.push(message);
  let registered = 0;
  const unusableSchemas = new Map(before?.unusableSchemas);
  // Tools often share a schema text (`{"type":"object"}`): compile each distinct text once.
  const validators = new Map<string, ValidatorOf>();
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
    const schema = parsedSchema(definition);
    if (typeof schema === 'string') {
      note(schema);
      continue;
    }
    const unusable = unusableSchemas.get(definition.inputSchema);
    if (unusable !== undefined) {
      note(unusableNote(definition, unusable));
      continue;
    }
    let validatorOf = validators.get(definition.inputSchema);
    if (validatorOf === undefined) {
      if (before === undefined) {
        let validate: ArgumentValidator;
        try {
          validate = compileArgumentValidator(schema);
        } catch (error) {
          unusableSchemas.set(definition.inputSchema, errorMessage(error));
          note(unusableNote(definition, errorMessage(error)));
          continue;
        }
        validatorOf = () => validate;
      } else {
        validatorOf = compiledAtFirstUse(definition.inputSchema, before);
      }
      validators.set(definition.inputSchema, validatorOf);
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
        const validate = validatorOf();
        if (typeof validate !== 'function') {
          // Forgotten before the call reports: a one-shot command exits right after.
          await validate.forgotten;
          return {
            content: `tool ${qualified} cannot be called: its input-schema is not a usable JSON Schema (${validate.unusable}); a new session registers this plugin's tools again`,
            isError: true,
          };
        }
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
          // Awaited only when set: an `await` of undefined still costs the call a microtask turn.
          if (beforeCall !== undefined) await beforeCall(ctx, toolEffect);
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
      registry.register(tool, scope);
      registered++;
    } catch (error) {
      // The first-run freeze is the host's policy: its error goes to the host, not into a note.
      if (isKernelError(error) && error.code === KernelErrorCode.REGISTRY_FROZEN) throw error;
      note(errorMessage(error));
    }
  }
  return { registered, unusableSchemas };
}

/**
 * The validator of a schema text (a JSON object, checked at registration) that compiled when its
 * list was registered before, compiled at its first use. From the text, not from the parsed
 * schema the tool's definition shows: whatever happens to that object meanwhile, the arguments
 * are checked against what the guest declared. Should it not compile now (the process runs
 * another Ajv than the one that judged it), every call reports why and the list is forgotten,
 * so the next mount judges it again.
 */
function compiledAtFirstUse(text: string, before: RegisteredBefore): ValidatorOf {
  let compiled: ReturnType<ValidatorOf> | undefined;
  return () => {
    if (compiled === undefined) {
      try {
        compiled = compileArgumentValidator(JSON.parse(text) as JsonObject);
      } catch (error) {
        compiled = { unusable: errorMessage(error), forgotten: before.forget() };
      }
    }
    return compiled;
  };
}
