/**
 * Listing with paging limits (≤ 32 pages, an item cap, a repeated cursor aborts) and the
 * normalization of listed tools and prompts.
 * @module
 */
import { isJsonObject, jsonDepthExceeds, LIMITS } from '@clat/kernel';
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

/**
 * Listed tools, normalized; a tool without a name, or with an output schema nested deeper than
 * the schema limit, is skipped with a diagnostic. (The kernel registry refuses a deep input
 * schema of any plugin; the output schema stays here, so it is checked here.)
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
    const tool: McpToolDescriptor = {
      name: item.name,
      description:
        typeof item.description === 'string'
          ? item.description
          : typeof item.title === 'string'
            ? item.title
            : '',
      inputSchema: isJsonObject(item.inputSchema) ? item.inputSchema : { type: 'object' },
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
