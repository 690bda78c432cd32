/**
 * The kernel's catalog port over one MCP connection: prompts (list, render) and resources (list,
 * templates, read) translated into the kernel's neutral shapes. Nothing here registers anything:
 * a person invokes it, the model through the kernel's resource tools. Rendered prompts and reads are bounded by the tool result limit.
 * @module
 */
import {
  type CatalogContent,
  type CatalogMessage,
  type CatalogPrompt,
  type CatalogPromptArgument,
  type CatalogResource,
  type CatalogResourceTemplate,
  isJsonObject,
  jsonDepthExceeds,
  LIMITS,
  type PluginCatalog,
  type RenderedPrompt,
  type ResourceRead,
  utf8Length,
} from '@clat/kernel';
import type { McpClient, McpPromptDescriptor } from './client.js';
import { isMcpError, McpError, McpErrorCode } from './errors.js';
import { JsonRpcErrorCode } from './transport.js';

type Json = Record<string, unknown>;

function quoted(value: string): string {
  return JSON.stringify(value);
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Copies the string fields that are present (exactOptionalPropertyTypes: no `undefined` keys). */
function withStrings<T extends object>(target: T, source: Json, keys: readonly string[]): T {
  for (const key of keys) {
    const value = optionalString(source[key]);
    if (value !== undefined) (target as Json)[key] = value;
  }
  return target;
}

/** A prompt's declared arguments in order; entries without a string name are dropped. */
export function promptArgumentsFromMcp(
  raw: readonly unknown[] | undefined,
): CatalogPromptArgument[] {
  const out: CatalogPromptArgument[] = [];
  for (const item of raw ?? []) {
    if (!isJsonObject(item) || typeof item.name !== 'string' || item.name === '') continue;
    out.push(
      withStrings({ name: item.name, required: item.required === true }, item, ['description']),
    );
  }
  return out;
}

export function promptFromMcp(prompt: McpPromptDescriptor & { title?: unknown }): CatalogPrompt {
  return withStrings(
    { name: prompt.name, arguments: promptArgumentsFromMcp(prompt.arguments) },
    prompt as unknown as Json,
    ['title', 'description'],
  );
}

/** Decoded size of base64 text without decoding it. */
function base64Bytes(blob: string): number {
  const clean = blob.replace(/\s+/g, '');
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

/** One resource content (`{uri, mimeType?, text}` or `{uri, mimeType?, blob}`). */
function resourceContentFromMcp(item: unknown): CatalogContent | undefined {
  if (!isJsonObject(item)) return undefined;
  const meta = withStrings({}, item, ['uri', 'mimeType']);
  if (typeof item.text === 'string') return { kind: 'text', text: item.text, ...meta };
  if (typeof item.blob === 'string') {
    return { kind: 'blob', blob: item.blob, bytes: base64Bytes(item.blob), ...meta };
  }
  return undefined;
}

/**
 * One content block of a prompt message: text, image/audio (base64 `data`), an embedded resource,
 * or a resource link (kept as a line naming the link, the person decides whether to read it).
 */
export function contentFromMcp(block: unknown): CatalogContent | undefined {
  if (!isJsonObject(block)) return undefined;
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? { kind: 'text', text: block.text } : undefined;
    case 'image':
    case 'audio': {
      if (typeof block.data !== 'string') return undefined;
      const meta = withStrings({}, block, ['mimeType']);
      return { kind: 'blob', blob: block.data, bytes: base64Bytes(block.data), ...meta };
    }
    case 'resource':
      return resourceContentFromMcp(block.resource);
    case 'resource_link':
      return typeof block.uri === 'string'
        ? { kind: 'text', text: `resource link: ${block.uri}`, uri: block.uri }
        : undefined;
    default:
      return undefined;
  }
}

/**
 * Measures a result against the tool result limits (size and nesting), the bound of everything a
 * person attaches.
 */
function bounded(server: string, what: string, result: Json): number {
  // JSON.stringify recurses: a result nested 20,000 deep would overflow it (and every later reader).
  if (jsonDepthExceeds(result, LIMITS.toolResultDepth)) {
    throw new McpError(
      McpErrorCode.MCP_RESULT_TOO_LARGE,
      `${what} of MCP server ${quoted(server)} returned JSON nested more than ${LIMITS.toolResultDepth} levels deep (the limit)`,
      { server },
    );
  }
  const bytes = utf8Length(JSON.stringify(result));
  if (bytes > LIMITS.toolResultBytes) {
    throw new McpError(
      McpErrorCode.MCP_RESULT_TOO_LARGE,
      `${what} of MCP server ${quoted(server)} returned ${bytes} bytes, over the result limit of ${LIMITS.toolResultBytes} bytes`,
      { server },
    );
  }
  return bytes;
}

export function renderedPromptFromMcp(server: string, name: string, result: Json): RenderedPrompt {
  bounded(server, `prompt ${quoted(name)}`, result);
  if (!Array.isArray(result.messages)) {
    throw new McpError(
      McpErrorCode.MCP_PROTOCOL_VIOLATION,
      `prompt ${quoted(name)} of MCP server ${quoted(server)} returned no "messages" array`,
      { server },
    );
  }
  const messages: CatalogMessage[] = [];
  for (const message of result.messages) {
    if (!isJsonObject(message)) continue;
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    // Legacy servers send one content block; newer shapes allow an array.
    const blocks = Array.isArray(message.content) ? message.content : [message.content];
    const content = blocks.flatMap((block) => contentFromMcp(block) ?? []);
    if (content.length > 0) messages.push({ role, content });
  }
  return withStrings({ messages }, result, ['description']);
}

export function resourceFromMcp(item: unknown): CatalogResource | undefined {
  if (!isJsonObject(item) || typeof item.uri !== 'string' || item.uri === '') return undefined;
  const resource = withStrings(
    { uri: item.uri, name: typeof item.name === 'string' ? item.name : item.uri },
    item,
    ['title', 'description', 'mimeType'],
  );
  if (typeof item.size === 'number' && Number.isFinite(item.size)) {
    (resource as { size?: number }).size = item.size;
  }
  return resource;
}

export function resourceTemplateFromMcp(item: unknown): CatalogResourceTemplate | undefined {
  if (!isJsonObject(item) || typeof item.uriTemplate !== 'string' || item.uriTemplate === '') {
    return undefined;
  }
  return withStrings(
    {
      uriTemplate: item.uriTemplate,
      name: typeof item.name === 'string' ? item.name : item.uriTemplate,
    },
    item,
    ['title', 'description', 'mimeType'],
  );
}

export function resourceReadFromMcp(server: string, uri: string, result: Json): ResourceRead {
  const bytes = bounded(server, `resource ${quoted(uri)}`, result);
  if (!Array.isArray(result.contents)) {
    throw new McpError(
      McpErrorCode.MCP_PROTOCOL_VIOLATION,
      `resource ${quoted(uri)} of MCP server ${quoted(server)} returned no "contents" array`,
      { server },
    );
  }
  return { contents: result.contents.flatMap((item) => resourceContentFromMcp(item) ?? []), bytes };
}

/**
 * The catalog of one connected server; kinds it did not declare reject with MCP_NOT_OFFERED.
 * `connection` may be a getter of the live connection, which a restart replaces.
 */
export function createMcpCatalog(connection: McpClient | (() => McpClient)): PluginCatalog {
  const live = typeof connection === 'function' ? connection : () => connection;
  const first = live();
  const server = first.name;
  const prompts = isJsonObject(first.serverCapabilities.prompts);
  const resources = isJsonObject(first.serverCapabilities.resources);
  const require = (offered: boolean, kind: string): void => {
    if (!offered) {
      throw new McpError(
        McpErrorCode.MCP_NOT_OFFERED,
        `MCP server ${quoted(server)} offers no ${kind}`,
        { server },
      );
    }
  };
  return {
    prompts,
    resources,
    async listPrompts(signal) {
      require(prompts, 'prompts');
      return (await live().listPrompts(signal)).map(promptFromMcp);
    },
    async renderPrompt(name, args, signal) {
      require(prompts, 'prompts');
      const result = await live().getPrompt(name, { ...args }, { signal });
      return renderedPromptFromMcp(server, name, result);
    },
    async listResources(signal) {
      require(resources, 'resources');
      return (await live().listResources(signal)).flatMap((item) => resourceFromMcp(item) ?? []);
    },
    async listResourceTemplates(signal) {
      require(resources, 'resources');
      let items: unknown[];
      try {
        items = await live().listResourceTemplates(signal);
      } catch (error) {
        // Templates are optional within the resources capability: "method not found" means none.
        if (isMcpError(error) && error.rpcCode === JsonRpcErrorCode.METHOD_NOT_FOUND) return [];
        throw error;
      }
      return items.flatMap((item) => resourceTemplateFromMcp(item) ?? []);
    },
    async readResource(uri, signal) {
      require(resources, 'resources');
      return resourceReadFromMcp(server, uri, await live().readResource(uri, { signal }));
    },
  };
}
