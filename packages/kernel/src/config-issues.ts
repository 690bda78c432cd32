/**
 * One shape for configuration problems of any file (plugin manifests, plugins.json, provider
 * config, a connector's own config): each names the file and the field, one sentence.
 * @module
 */
import type * as z from 'zod';

export interface ConfigIssue {
  /** The file the issue is in. */
  file: string;
  /** Dotted path, e.g. `memory.args[1]`. */
  path: string;
  message: string;
  /** Fields the file has at `path` that its schema does not know (the message names them too). */
  unknownKeys?: readonly string[];
  /**
   * The fields the schema knows at `path`, when the reader set them: a host can name the one an
   * unknown field was likely meant to be (`"comand"`: did you mean `"command"`?).
   */
  knownKeys?: readonly string[];
}

function issuePath(base: string, path: readonly PropertyKey[]): string {
  let out = base;
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : `.${String(key)}`;
  return out;
}

/**
 * Turns zod issues into one line each, naming the file and field. With the `schema` that was
 * parsed, an unknown field's issue also carries the fields the schema knows there.
 */
export function formatZodIssues(
  file: string,
  base: string,
  error: z.ZodError,
  schema?: z.ZodType,
): ConfigIssue[] {
  return error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const known = schema === undefined ? undefined : knownFieldsAt(schema, issue.path);
      return {
        file,
        path: issuePath(base, issue.path),
        message: `unknown field(s) ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`,
        unknownKeys: issue.keys,
        ...(known === undefined ? {} : { knownKeys: known }),
      };
    }
    return { file, path: issuePath(base, issue.path), message: issue.message };
  });
}

/** The definition zod 4 keeps on every schema, as far as this walk reads it. */
interface SchemaDef {
  type?: string;
  innerType?: unknown;
  element?: unknown;
  valueType?: unknown;
  in?: unknown;
  getter?: () => unknown;
}

/** `schema` without the wrappers that do not change its fields (default, optional, lazy, …). */
function unwrapped(schema: unknown): { def?: SchemaDef; shape?: Record<string, unknown> } {
  let node = schema as { def?: SchemaDef; shape?: Record<string, unknown> };
  for (let depth = 0; depth < 16; depth++) {
    const def = node?.def;
    const inner = def?.innerType ?? (def?.type === 'pipe' ? def.in : undefined) ?? def?.getter?.();
    if (inner === undefined) return node;
    node = inner as typeof node;
  }
  return node;
}

/**
 * The field names the object schema at `path` of `schema` knows (through objects, arrays and
 * records); undefined where the path reaches no object schema.
 */
function knownFieldsAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] | undefined {
  let node = unwrapped(schema);
  for (const key of path) {
    const def = node.def;
    const next =
      def?.type === 'object'
        ? node.shape?.[String(key)]
        : def?.type === 'array'
          ? def.element
          : def?.type === 'record'
            ? def.valueType
            : undefined;
    if (next === undefined) return undefined;
    node = unwrapped(next);
  }
  return node.def?.type === 'object' && node.shape !== undefined
    ? Object.keys(node.shape)
    : undefined;
}
