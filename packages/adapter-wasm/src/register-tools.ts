/**
 * Registering a WASM plugin's tools in the kernel registry as `wasm_{plugin}_{tool}` leases,
 * skipping (with a note) every definition that cannot be used, and mapping guest outcomes to
 * tool results.
 * @module
 */
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
import { type ArgumentValidator, compileArgumentValidator } from './argument-validator.js';
import { isWasmError } from './errors.js';
import type { GuestCallOutcome, GuestToolDefinition } from './guest-host-contract.js';
import type { GuestCaller } from './lazy-start.js';
import type { MountWasmPluginOptions } from './mount.js';

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
 * them) and returns how many registered; each skipped one leaves a note in `warnings`. A frozen
 * registry's REGISTRY_FROZEN error propagates.
 */
export function registerTools(
  options: MountWasmPluginOptions,
  guest: GuestCaller,
  definitions: readonly GuestToolDefinition[],
  warnings: string[],
  beforeCall: ((ctx: ToolCallContext, effect: Effect) => Promise<void>) | undefined,
): number {
  const { name, registry, scope } = options;
  const note = (message: string) => warnings.push(message);
  let registered = 0;
  // Tools often share a schema text (`{"type":"object"}`): compile each distinct text once.
  const validators = new Map<string, ArgumentValidator>();
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
      validate = validators.get(definition.inputSchema) ?? compileArgumentValidator(schema);
      validators.set(definition.inputSchema, validate);
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
  return registered;
}
