/**
 * The `clat:plugin@0.1.0` contract (wit/plugin.wit) as zod schemas, in the JavaScript shape jco
 * gives WIT values: camelCase fields, enums as their kebab-case strings, variants as
 * `{ tag, val }`, options as `T | undefined`, results as `{ tag: 'ok' | 'err', val }`.
 * The parity test reads the WIT file and checks every interface, type and function here.
 * @module
 */
import * as z from 'zod';
import { EFFECTS } from '../effects.js';
import { lazyValue } from '../lazy-value.js';

/** `result<T, E>` in jco's data shape. */
export function witResult<T extends z.ZodType, E extends z.ZodType>(ok: T, err: E) {
  return z.discriminatedUnion('tag', [
    z.object({ tag: z.literal('ok'), val: ok }),
    z.object({ tag: z.literal('err'), val: err }),
  ]);
}

const u32 = lazyValue(() => z.number().int().min(0).max(0xffffffff));

// interface types
export const EffectSchema = lazyValue(() => z.enum(EFFECTS));
export const ToolDefinitionSchema = lazyValue(() =>
  z.object({
    name: z.string(),
    description: z.string(),
    inputSchema: z.string(),
    effect: EffectSchema,
  }),
);

// interface sampling
export const SamplingRoleSchema = lazyValue(() => z.enum(['user', 'assistant']));
export const SamplingMessageSchema = lazyValue(() =>
  z.object({ role: SamplingRoleSchema, text: z.string() }),
);
export const SamplingRequestSchema = lazyValue(() =>
  z.object({
    systemPrompt: z.string().optional(),
    messages: z.array(SamplingMessageSchema),
    maxTokens: u32,
    temperature: z.number().optional(),
  }),
);
export const SamplingOutcomeSchema = lazyValue(() =>
  z.object({
    text: z.string(),
    model: z.string(),
    stopReason: z.string(),
  }),
);

// interface elicitation
export const FieldKindSchema = lazyValue(() => z.enum(['text', 'number', 'boolean', 'choice']));
export const ElicitationValueSchema = lazyValue(() =>
  z.discriminatedUnion('tag', [
    z.object({ tag: z.literal('text'), val: z.string() }),
    z.object({ tag: z.literal('number'), val: z.number() }),
    z.object({ tag: z.literal('boolean'), val: z.boolean() }),
  ]),
);
export const ElicitationFieldSchema = lazyValue(() =>
  z.object({
    name: z.string(),
    title: z.string().optional(),
    description: z.string().optional(),
    kind: FieldKindSchema,
    options: z.array(z.string()),
    required: z.boolean(),
    default: ElicitationValueSchema.optional(),
  }),
);
export const ElicitationFormSchema = lazyValue(() =>
  z.object({
    message: z.string(),
    fields: z.array(ElicitationFieldSchema),
  }),
);
export const ElicitationOutcomeSchema = lazyValue(() =>
  z.discriminatedUnion('tag', [
    z.object({
      tag: z.literal('accepted'),
      val: z.array(z.tuple([z.string(), ElicitationValueSchema])),
    }),
    z.object({ tag: z.literal('declined') }),
    z.object({ tag: z.literal('cancelled') }),
  ]),
);

export type ToolDefinitionWire = z.infer<typeof ToolDefinitionSchema>;
export type SamplingMessage = z.infer<typeof SamplingMessageSchema>;
export type SamplingRequest = z.infer<typeof SamplingRequestSchema>;
export type SamplingOutcome = z.infer<typeof SamplingOutcomeSchema>;
export type ElicitationValue = z.infer<typeof ElicitationValueSchema>;
export type ElicitationField = z.infer<typeof ElicitationFieldSchema>;
export type ElicitationForm = z.infer<typeof ElicitationFormSchema>;
export type ElicitationOutcome = z.infer<typeof ElicitationOutcomeSchema>;

export interface ContractFunction {
  params: Readonly<Record<string, z.ZodType>>;
  result?: z.ZodType;
}

export interface ContractInterface {
  /** Named types of the interface, keyed by their WIT (kebab-case) name. */
  types: Readonly<Record<string, z.ZodType>>;
  /** Functions keyed by their JavaScript (camelCase) name. */
  functions: Readonly<Record<string, ContractFunction>>;
}

/** Every interface of `clat:plugin@0.1.0`, keyed by WIT interface name. */
export const PLUGIN_CONTRACT = lazyValue(() => {
  const stringResult = witResult(z.string(), z.string());
  return {
    types: {
      types: { effect: EffectSchema, definition: ToolDefinitionSchema },
      functions: {},
    },
    tools: {
      types: {},
      functions: {
        listTools: { params: {}, result: z.array(ToolDefinitionSchema) },
        call: { params: { name: z.string(), argsJson: z.string() }, result: stringResult },
      },
    },
    host: {
      types: {},
      functions: {
        context: { params: {}, result: stringResult },
        callTool: { params: { name: z.string(), argsJson: z.string() }, result: stringResult },
      },
    },
    sampling: {
      types: {
        role: SamplingRoleSchema,
        message: SamplingMessageSchema,
        request: SamplingRequestSchema,
        outcome: SamplingOutcomeSchema,
      },
      functions: {
        createMessage: {
          params: { request: SamplingRequestSchema },
          result: witResult(SamplingOutcomeSchema, z.string()),
        },
      },
    },
    elicitation: {
      types: {
        'field-kind': FieldKindSchema,
        value: ElicitationValueSchema,
        field: ElicitationFieldSchema,
        form: ElicitationFormSchema,
        outcome: ElicitationOutcomeSchema,
      },
      functions: {
        elicit: {
          params: { form: ElicitationFormSchema },
          result: witResult(ElicitationOutcomeSchema, z.string()),
        },
      },
    },
    config: {
      types: {},
      functions: { get: { params: {}, result: stringResult } },
    },
  } as const satisfies Record<string, ContractInterface>;
});

/** The world: which interfaces a guest imports from the host and which it exports. */
export const PLUGIN_WORLD = {
  package: 'clat:plugin@0.1.0',
  name: 'plugin',
  imports: ['host', 'sampling', 'elicitation', 'config'],
  exports: ['tools'],
} as const;

/** JSON Schema (draft 2020-12) of every contract type and function, for non-TypeScript hosts. */
export function pluginContractJsonSchema(): Record<string, unknown> {
  const interfaces: Record<string, unknown> = {};
  for (const [name, iface] of Object.entries(PLUGIN_CONTRACT) as [string, ContractInterface][]) {
    const types: Record<string, unknown> = {};
    for (const [typeName, schema] of Object.entries(iface.types))
      types[typeName] = z.toJSONSchema(schema);
    const functions: Record<string, unknown> = {};
    for (const [fnName, fn] of Object.entries(iface.functions)) {
      const params: Record<string, unknown> = {};
      for (const [param, schema] of Object.entries(fn.params))
        params[param] = z.toJSONSchema(schema);
      functions[fnName] = {
        params,
        ...(fn.result === undefined ? {} : { result: z.toJSONSchema(fn.result) }),
      };
    }
    interfaces[name] = { types, functions };
  }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://clat.dev/schemas/clat-plugin-0.1.0.json',
    title: PLUGIN_WORLD.package,
    world: PLUGIN_WORLD,
    interfaces,
  };
}
