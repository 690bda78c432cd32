/**
 * Reads a finished tools/call result: every content block kept (text, image, audio, embedded
 * resource, resource link), its size measured across blocks and structured output (each counted
 * once, never by re-serialising the result), and the kernel ToolResult built from it. The tool
 * result limit has one owner, the kernel pipeline, which bounds `ToolResult.bytes` for every tool;
 * this file only measures.
 * @module
 */
import {
  contentBlockBytes,
  isJsonObject,
  jsonDepthExceeds,
  LIMITS,
  renderToolContent,
  type ToolContentBlock,
  type ToolResult,
  utf8Length,
} from '@clat/kernel';
import { McpError, McpErrorCode } from './errors.js';

/** A finished tools/call result (resultType `complete`). */
export interface McpCallToolResult {
  /** Every well-formed content block, as the server sent it. */
  content: ToolContentBlock[];
  structuredContent?: unknown;
  /** `structuredContent` as JSON text, serialised once while counting it. */
  structuredJson?: string;
  isError: boolean;
  /**
   * Size of the result in bytes: its frame as the transport read it (less the JSON-RPC envelope)
   * when known, else its blocks and structured output, each counted once.
   */
  bytes: number;
  /** Blocks that were left out (unknown type or a malformed shape), with the reason. */
  skipped: string[];
}

function quoted(value: string): string {
  return JSON.stringify(value);
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

/** Why a block is not a content block CLAT knows, or undefined when it is one. */
function blockProblem(block: unknown): string | undefined {
  if (!isJsonObject(block)) return 'a content block is not an object';
  switch (block.type) {
    case 'text':
      return isString(block.text) ? undefined : 'a text block has no string "text"';
    case 'image':
    case 'audio':
      return isString(block.data) && isString(block.mimeType)
        ? undefined
        : `an ${block.type} block needs string "data" and "mimeType"`;
    case 'resource': {
      const resource = block.resource;
      if (!isJsonObject(resource) || !isString(resource.uri)) {
        return 'a resource block needs a "resource" with a string "uri"';
      }
      if (!isString(resource.text) && !isString(resource.blob)) {
        return `resource ${quoted(resource.uri)} has neither string "text" nor "blob"`;
      }
      if (resource.mimeType !== undefined && !isString(resource.mimeType)) {
        return `resource ${quoted(resource.uri)} has a non-string "mimeType"`;
      }
      return undefined;
    }
    case 'resource_link':
      if (!isString(block.uri) || !isString(block.name)) {
        return 'a resource_link block needs string "uri" and "name"';
      }
      return undefined;
    default:
      return `content type ${JSON.stringify(block.type)} is unknown`;
  }
}

/**
 * Validates and measures a raw tools/call result. `frameBytes` is its size as the transport read
 * it, when known; otherwise each block and the structured output are counted once here. The size
 * is not judged here (the pipeline does). Throws MCP_RESULT_TOO_LARGE over the structured nesting
 * limit and MCP_PROTOCOL_VIOLATION for a non-array `content`.
 */
export function readCallToolResult(
  server: string,
  tool: string,
  result: Record<string, unknown>,
  frameBytes?: number,
): McpCallToolResult {
  const raw = result.content;
  if (raw !== undefined && !Array.isArray(raw)) {
    throw new McpError(
      McpErrorCode.MCP_PROTOCOL_VIOLATION,
      `MCP tool ${quoted(tool)} of server ${quoted(server)} returned a non-array "content"`,
      { server },
    );
  }
  const counting = frameBytes === undefined;
  const content: ToolContentBlock[] = [];
  const skipped: string[] = [];
  let bytes = frameBytes ?? 0;
  let hasText = false;
  for (const block of raw ?? []) {
    const problem = blockProblem(block);
    if (problem !== undefined) {
      skipped.push(problem);
      continue;
    }
    const known = block as ToolContentBlock;
    if (known.type === 'text' || (known.type === 'resource' && known.resource.text !== undefined)) {
      hasText = true;
    }
    // The blocks are parsed already (within the transport's frame cap): counting them all costs
    // no memory, so there is no early stop.
    if (counting) bytes += contentBlockBytes(known);
    content.push(known);
  }
  const out: McpCallToolResult = { content, isError: result.isError === true, bytes, skipped };
  const structured = result.structuredContent;
  if (structured !== undefined) {
    if (jsonDepthExceeds(structured, LIMITS.toolResultDepth)) {
      throw new McpError(
        McpErrorCode.MCP_RESULT_TOO_LARGE,
        `MCP tool ${quoted(tool)} of server ${quoted(server)} returned structured content nested more than ${LIMITS.toolResultDepth} levels deep`,
        { server },
      );
    }
    out.structuredContent = structured;
    // Serialised at most once: to count it when the frame size is unknown, and as the text a
    // text-only reader sees when no block is text.
    if (counting || !hasText) {
      const json = JSON.stringify(structured);
      out.structuredJson = json;
      if (counting) out.bytes += utf8Length(json);
    }
  }
  return out;
}

/**
 * The kernel result of a tools/call: the text rendering of every block (structured output as
 * JSON text when there is no text block), every block itself, and the byte count the pipeline
 * bounds.
 */
export function toToolResult(name: string, result: McpCallToolResult): ToolResult {
  let content = renderToolContent(result.content, result.structuredJson);
  for (const reason of result.skipped) {
    content += `${content === '' ? '' : '\n'}[content left out: ${reason}]`;
  }
  if (content === '') {
    content = result.isError
      ? `MCP tool ${quoted(name)} failed`
      : `(MCP tool ${quoted(name)} returned no content)`;
  }
  const out: ToolResult = { content, blocks: result.content, bytes: result.bytes };
  if (result.structuredContent !== undefined) out.structured = result.structuredContent;
  if (result.isError) out.isError = true;
  return out;
}
