/**
 * `clat call <tool>` arguments: one JSON object, or `key=value` pairs typed by the tool's input
 * schema (`limit=5` is a number when the schema says so, `tags='["a"]'` an array). Errors name
 * the argument and what was expected.
 * @module
 */
import { describeJsonSyntaxError } from '@clat/kernel';
import { CliError, CliErrorCode } from '../errors.js';
import { didYouMean } from '../ui/did-you-mean.js';
import { parametersOf } from '../ui/tool-signature.js';

type Schema = Record<string, unknown>;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `who` is where the arguments were typed: `clat call`, or the session's `/call`. */
function usage(message: string, who = 'clat call'): CliError {
  return new CliError(CliErrorCode.CLI_USAGE, `${who}: ${message}`);
}

/** True when the words are a single JSON text rather than key=value pairs. */
export function isJsonArgument(words: readonly string[]): boolean {
  const first = words[0]?.trimStart();
  return words.length === 1 && first !== undefined && /^[{[]/.test(first);
}

export function parseJsonArguments(text: string | undefined): unknown {
  if (text === undefined) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw usage(`arguments are not valid JSON: ${describeJsonSyntaxError(text)}`);
  }
}

function typesOf(schema: unknown): string[] {
  if (!isSchema(schema)) return [];
  if (Array.isArray(schema.type)) return schema.type.map(String);
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.enum)) return [...new Set(schema.enum.map((value) => typeof value))];
  const union = (schema.anyOf ?? schema.oneOf) as unknown;
  if (Array.isArray(union)) return union.flatMap(typesOf);
  return [];
}

/** Converts one value by the property's schema type; strings stay as typed. */
function convert(key: string, raw: string, schema: unknown, who: string): unknown {
  const types = typesOf(schema);
  if (types.length === 0 || types.includes('string')) {
    if (types.length > 1 && raw === 'null' && types.includes('null')) return null;
    return raw;
  }
  for (const type of types) {
    if ((type === 'number' || type === 'integer') && raw.trim() !== '') {
      const value = Number(raw);
      if (Number.isFinite(value) && (type === 'number' || Number.isInteger(value))) return value;
    }
    if (type === 'boolean' && (raw === 'true' || raw === 'false')) return raw === 'true';
    if (type === 'null' && raw === 'null') return null;
    if (type === 'array' || type === 'object') {
      try {
        const value: unknown = JSON.parse(raw);
        if (type === 'array' ? Array.isArray(value) : isSchema(value)) return value;
      } catch {
        // falls through to the error below
      }
    }
  }
  throw usage(`${key}=${JSON.stringify(raw)} is not a valid ${types.join(' | ')}`, who);
}

/**
 * Turns `key=value` words into an arguments object using `inputSchema`. A key the schema does
 * not declare is refused unless it allows extra properties; a repeated key is refused.
 */
export function parseKeyValueArguments(
  words: readonly string[],
  inputSchema: unknown,
  who = 'clat call',
): Record<string, unknown> {
  const properties =
    isSchema(inputSchema) && isSchema(inputSchema.properties) ? inputSchema.properties : {};
  // A key the schema does not list is almost always a typo: refuse it unless the schema
  // explicitly allows extra properties (or lists none at all).
  const additional = isSchema(inputSchema) ? inputSchema.additionalProperties : undefined;
  const closed =
    Object.keys(properties).length > 0 && (additional === undefined || additional === false);
  // Without a prototype: a key a person types (`__proto__`) is an own property like any other,
  // not a change of the object's prototype that loses the argument.
  const out: Record<string, unknown> = Object.create(null);
  for (const word of words) {
    const eq = word.indexOf('=');
    if (eq <= 0) {
      throw usage(
        `${JSON.stringify(word)} is not key=value; pass either key=value pairs or one JSON object`,
        who,
      );
    }
    const key = word.slice(0, eq);
    if (Object.hasOwn(out, key)) {
      throw usage(`argument ${JSON.stringify(key)} is given twice`, who);
    }
    if (!Object.hasOwn(properties, key) && closed) {
      const known = parametersOf(inputSchema).map((param) => param.name);
      throw usage(
        `the tool has no argument ${JSON.stringify(key)}${didYouMean(key, known)}${known.length > 0 ? `; it takes ${known.join(', ')}` : ''}`,
        who,
      );
    }
    const declared = Object.hasOwn(properties, key) ? properties[key] : undefined;
    out[key] = convert(key, word.slice(eq + 1), declared, who);
  }
  return out;
}
