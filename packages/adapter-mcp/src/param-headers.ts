/**
 * `x-mcp-header` (2026-07-28 Streamable HTTP): a tool's input property may ask for its value to be
 * mirrored in an `Mcp-Param-<Name>` header. A tool whose declarations are invalid must be dropped.
 * Runtime-neutral like the rest of the core (no `Buffer`).
 * @module
 */
import { isJsonObject } from '@clat/kernel';

export const X_MCP_HEADER = 'x-mcp-header';
export const PARAM_HEADER_PREFIX = 'mcp-param-';

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PRIMITIVE_TYPES = new Set(['string', 'integer', 'boolean']);

/** Subschema keywords outside the `properties` chain: a declaration under them is invalid. */
const UNREACHABLE = [
  'items',
  'prefixItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'patternProperties',
  'dependentSchemas',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
] as const;
const NAMED_SUBSCHEMAS = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions']);

const utf8 = new TextEncoder();

/**
 * Header-safe form of a value (`Mcp-Name`, `Mcp-Param-*`): as is when plain printable ASCII
 * without edge whitespace, else the `=?base64?<UTF-8 bytes>?=` sentinel.
 */
export function encodeHeaderValue(value: string): string {
  const plain = /^[\x20-\x7e]*$/.test(value) && value.trim() === value && !value.startsWith('=?');
  if (plain) return value;
  let binary = '';
  for (const byte of utf8.encode(value)) binary += String.fromCharCode(byte);
  return `=?base64?${btoa(binary)}?=`;
}

export interface ParamHeader {
  /** Header name as declared (`Region` → `Mcp-Param-Region`). */
  name: string;
  /** Argument path through nested objects. */
  path: string[];
}

/** The declarations of one input schema, or why the tool must be dropped. */
export function scanParamHeaders(
  inputSchema: unknown,
): { headers: ParamHeader[] } | { invalid: string } {
  const headers: ParamHeader[] = [];
  const seen = new Set<string>();
  const visit = (node: unknown, path: string[], reachable: boolean): string | undefined => {
    if (!isJsonObject(node)) return undefined;
    if (X_MCP_HEADER in node) {
      const where = path.length === 0 ? 'the schema root' : path.join('.');
      if (!reachable || path.length === 0) {
        return `${where}: x-mcp-header is allowed only on properties reached through "properties"`;
      }
      const name = node[X_MCP_HEADER];
      if (typeof name !== 'string' || !TOKEN.test(name)) {
        return `${where}: x-mcp-header must be a non-empty HTTP token`;
      }
      if (typeof node.type !== 'string' || !PRIMITIVE_TYPES.has(node.type)) {
        return `${where}: x-mcp-header is allowed only on string, integer or boolean properties`;
      }
      if (seen.has(name.toLowerCase()))
        return `x-mcp-header ${JSON.stringify(name)} is declared twice`;
      seen.add(name.toLowerCase());
      headers.push({ name, path });
    }
    if (isJsonObject(node.properties)) {
      for (const [key, child] of Object.entries(node.properties)) {
        const problem = visit(child, [...path, key], reachable);
        if (problem !== undefined) return problem;
      }
    }
    for (const keyword of UNREACHABLE) {
      const sub = node[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub)
        ? sub
        : NAMED_SUBSCHEMAS.has(keyword) && isJsonObject(sub)
          ? Object.values(sub)
          : [sub];
      for (const branch of branches) {
        const problem = visit(branch, [...path, `<${keyword}>`], false);
        if (problem !== undefined) return problem;
      }
    }
    return undefined;
  };
  const problem = visit(inputSchema, [], true);
  return problem === undefined ? { headers } : { invalid: problem };
}

/**
 * Adds the `Mcp-Param-*` headers of one tools/call to `out` (lower-case names); null or absent
 * values send no header.
 */
export function paramHeaderValues(
  declarations: readonly ParamHeader[],
  args: unknown,
  out: Record<string, string> = {},
): Record<string, string> {
  for (const declaration of declarations) {
    let value: unknown = args;
    for (const key of declaration.path) value = isJsonObject(value) ? value[key] : undefined;
    let text: string | undefined;
    if (typeof value === 'string') text = encodeHeaderValue(value);
    else if (typeof value === 'boolean') text = value ? 'true' : 'false';
    else if (typeof value === 'number' && Number.isFinite(value)) text = String(value);
    if (text !== undefined) out[`${PARAM_HEADER_PREFIX}${declaration.name.toLowerCase()}`] = text;
  }
  return out;
}
