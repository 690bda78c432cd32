/**
 * Listing with paging limits (≤ 32 pages, an item cap, a repeated cursor aborts) and the
 * normalization of listed tools and prompts.
 * @module
 */
import { schemaProblem } from '@clat/json-schema/meta';
import { isJsonObject, type JsonObject, jsonDepthExceeds, LIMITS } from '@clat/kernel';
import { quoted } from './client-diagnostics.js';
import type { McpPromptDescriptor, McpToolDescriptor } from './client-types.js';
import { McpError, McpErrorCode } from './errors.js';
import { MCP_LIMITS } from './limits.js';

/** Requests one page: `params` carries the cursor, `what` labels errors. */
export type PageRequest = (
  params: Record<string, unknown>,
  what: string,
) => Promise<Record<string, unknown>>;

function listLimit(server: string, message: string): McpError {
  return new McpError(McpErrorCode.MCP_LIST_LIMIT, message, { server });
}

/** Generic paging loop shared by tools/list and prompts/list. */
export async function listAllPages(
  server: string,
  method: string,
  key: string,
  maxItems: number,
  requestPage: PageRequest,
): Promise<unknown[]> {
  const items: unknown[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    if (page > MCP_LIMITS.listPages) {
      throw listLimit(
        server,
        `${method} of MCP server ${quoted(server)} needs more than ${MCP_LIMITS.listPages} pages`,
      );
    }
    const result = await requestPage(
      cursor === undefined ? {} : { cursor },
      `${method} page ${page}`,
    );
    const batch = result[key];
    if (batch !== undefined && !Array.isArray(batch)) {
      throw new McpError(
        McpErrorCode.MCP_PROTOCOL_VIOLATION,
        `${method} of MCP server ${quoted(server)} returned a non-array ${quoted(key)}`,
        { server },
      );
    }
    items.push(...(batch ?? []));
    if (items.length > maxItems) {
      throw listLimit(
        server,
        `MCP server ${quoted(server)} lists more than ${maxItems} ${key} (limit ${maxItems})`,
      );
    }
    const next = result.nextCursor;
    if (next === undefined || next === null || next === '') return items;
    if (typeof next !== 'string') {
      throw new McpError(
        McpErrorCode.MCP_PROTOCOL_VIOLATION,
        `${method} of MCP server ${quoted(server)} returned a non-string nextCursor`,
        { server },
      );
    }
    if (seen.has(next)) {
      throw listLimit(
        server,
        `${method} of MCP server ${quoted(server)} repeated cursor ${quoted(next)}; listing aborted`,
      );
    }
    seen.add(next);
    cursor = next;
  }
}

/** The most of a schema problem a note quotes: property names in it are the server's. */
const SCHEMA_PROBLEM_CHARS = 240;

/**
 * Why a listed input schema cannot be offered, or undefined. MCP tool arguments are one object,
 * so a schema of another `type` is refused (one without `type` is read as an object schema, as
 * the servers that omit it mean); then the schema must be valid JSON Schema of its dialect (its
 * `$schema`, else 2020-12, MCP's default since 2025-11-25): a model API refuses every request
 * whose tools include one broken schema, so one such tool would fail every turn of the session.
 * A schema nested past the limit is left to the registry, which refuses it by that limit.
 */
function inputSchemaProblem(schema: unknown): string | undefined {
  if (schema === undefined) return undefined;
  if (!isJsonObject(schema)) return 'its input schema is not a JSON object';
  if (schema.type !== undefined && schema.type !== 'object') {
    const type = JSON.stringify(schema.type).slice(0, 40);
    return `its input schema has "type": ${type}, and a tool's arguments are an object ("type": "object")`;
  }
  if (jsonDepthExceeds(schema, LIMITS.toolSchemaDepth)) return undefined;
  const problem = schemaProblem(schema, '2020-12', 'inputSchema');
  if (problem === undefined) return undefined;
  const shown =
    problem.length > SCHEMA_PROBLEM_CHARS ? `${problem.slice(0, SCHEMA_PROBLEM_CHARS)}…` : problem;
  return `its input schema is not valid JSON Schema (${shown})`;
}

/**
 * Listed tools, normalized; a tool without a name, with an input schema that cannot be offered
 * (see {@link inputSchemaProblem}), or with an output schema nested deeper than the schema limit,
 * is skipped with a diagnostic. (The kernel registry refuses a deep input schema of any plugin;
 * the output schema stays here, so it is checked here.)
 */
export function readToolDescriptors(
  server: string,
  items: readonly unknown[],
  onDiagnostic: (message: string) => void,
): McpToolDescriptor[] {
  const tools: McpToolDescriptor[] = [];
  for (const item of items) {
    if (!isJsonObject(item) || typeof item.name !== 'string' || item.name.trim() === '') {
      onDiagnostic(`MCP server ${quoted(server)} listed a tool without a name; skipped`);
      continue;
    }
    const inputProblem = inputSchemaProblem(item.inputSchema);
    if (inputProblem !== undefined) {
      onDiagnostic(
        `tool ${quoted(item.name)} of MCP server ${quoted(server)} skipped: ${inputProblem}`,
      );
      continue;
    }
    const tool: McpToolDescriptor = {
      name: item.name,
      description:
        typeof item.description === 'string'
          ? item.description
          : typeof item.title === 'string'
            ? item.title
            : '',
      inputSchema: (item.inputSchema as JsonObject | undefined) ?? { type: 'object' },
    };
    if (typeof item.title === 'string') tool.title = item.title;
    if (isJsonObject(item.outputSchema)) {
      if (jsonDepthExceeds(item.outputSchema, LIMITS.toolSchemaDepth)) {
        onDiagnostic(
          `tool ${quoted(item.name)} of MCP server ${quoted(server)} skipped: its output schema nests more than ${LIMITS.toolSchemaDepth} levels deep (the limit)`,
        );
        continue;
      }
      tool.outputSchema = item.outputSchema;
    }
    if (isJsonObject(item.annotations)) tool.annotations = item.annotations;
    const taskSupport = isJsonObject(item.execution) ? item.execution.taskSupport : undefined;
    if (taskSupport === 'required' || taskSupport === 'optional' || taskSupport === 'forbidden') {
      tool.taskSupport = taskSupport;
    }
    tools.push(tool);
  }
  return tools;
}

/** Listed prompts, normalized; a prompt without a name is dropped. */
export function readPromptDescriptors(items: readonly unknown[]): McpPromptDescriptor[] {
  const prompts: McpPromptDescriptor[] = [];
  for (const item of items) {
    if (!isJsonObject(item) || typeof item.name !== 'string' || item.name === '') continue;
    const prompt: McpPromptDescriptor = { name: item.name };
    if (typeof item.description === 'string') prompt.description = item.description;
    if (Array.isArray(item.arguments)) prompt.arguments = item.arguments;
    if (isJsonObject(item._meta)) prompt._meta = item._meta;
    prompts.push(prompt);
  }
  return prompts;
}
