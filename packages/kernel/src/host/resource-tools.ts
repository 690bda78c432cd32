/**
 * The resource tools: `list_resources` and `read_resource`, the model's way to the resources the
 * mounted plugins offer through their catalog (a resource link a tool returned, a document a
 * server publishes). Built on the `PluginCatalog` port only, so any plugin kind with a catalog is
 * covered and no wire code is involved. Opt-in: a distribution passes `createResourceTools` as
 * `HostOptions.hostTools`. Both are `external-read` tools, so they go through the pipeline like
 * any other (read-only mode asks). Failures the model can correct (an unknown server or URI) come
 * back as `isError` results naming the value; cancellation still throws.
 * @module
 */

import { cancelledError } from '../cancel.js';
import { ClatError, errorMessage, isClatError, KernelError, KernelErrorCode } from '../errors.js';
import { isJsonObject, type JsonObject, utf8Length } from '../json.js';
import { LIMITS } from '../limits.js';
import type { Tool, ToolCallContext, ToolResult } from '../tool-registry.js';
import { blobText } from './blob-text.js';
import type {
  CatalogContent,
  CatalogResource,
  CatalogResourceTemplate,
  PluginCatalog,
  ResourceRead,
} from './catalog.js';
import type { MountStatus } from './plugin-mount.js';

/** Names of the tools `createResourceTools` returns, in order. */
export const RESOURCE_TOOL_NAMES = ['list_resources', 'read_resource'] as const;

/** What the resource tools read of the host's mount (`PluginMount` is one). */
export interface CatalogDirectory {
  /** The catalog of a plugin connected now, or undefined. */
  catalog(name: string): PluginCatalog | undefined;
  /** Connected plugins that offer a catalog, in configuration order. */
  catalogNames(): string[];
  summary(): {
    servers: readonly Pick<MountStatus, 'name' | 'state' | 'failure' | 'login'>[];
  };
}

/** What `HostOptions.hostTools` is called with, once, when the host is created. */
export interface HostToolsContext {
  /** The host's mount: the catalogs of the plugins connected at the time of a call. */
  readonly mount: CatalogDirectory;
}

/** Room left for the fixed fields of a listing around its resources. */
const ENVELOPE_BYTES = 8 * 1024;

const quoted = (value: string): string => JSON.stringify(value);

/** One resource in a listing; the plugin's own texts, as it sent them. */
interface ListedResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
}

interface ListedTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

/** One server of a listing: what it offers, or why its listing failed. */
export interface ResourceListingServer {
  server: string;
  resources: ListedResource[];
  templates: ListedTemplate[];
  /** Set when the listing stopped at the result limit. */
  truncated?: true;
  error?: { code: string; message: string };
}

/** The structured output of `list_resources` (the model reads it as JSON). */
export interface ResourceListing {
  servers: ResourceListingServer[];
  /** Set when no server offers resources. */
  note?: string;
}

/** A tool-level failure: reported as an `isError` result with its code. */
function failure(error: ClatError): ToolResult {
  return {
    content: error.message,
    isError: true,
    structured: { error: { code: error.code, message: error.message } },
  };
}

function invalidArguments(tool: string, message: string): KernelError {
  return new KernelError(KernelErrorCode.TOOL_INVALID_ARGUMENTS, `${tool}: ${message}`);
}

/** The string argument `key`: required, or undefined when absent and optional. */
function stringArgument(
  tool: string,
  args: JsonObject,
  key: string,
  required: boolean,
): string | undefined {
  const value = args[key];
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || value === '') {
    throw invalidArguments(
      tool,
      value === undefined
        ? `"${key}" is required`
        : `"${key}" must be a non-empty string, got ${JSON.stringify(value) ?? typeof value}`,
    );
  }
  return value;
}

function onlyKnown(tool: string, args: JsonObject, known: readonly string[]): void {
  const unknown = Object.keys(args).find((key) => !known.includes(key));
  if (unknown !== undefined) {
    throw invalidArguments(
      tool,
      `unknown argument ${quoted(unknown)} (it takes ${known.map((k) => `"${k}"`).join(', ')})`,
    );
  }
}

/**
 * The catalog of `server` for resources, or a one-sentence error naming it: not mounted, not
 * connected (failed, waiting for a login, still connecting), or offering no resources.
 */
function resourceCatalog(mount: CatalogDirectory, server: string): PluginCatalog {
  const catalog = mount.catalog(server);
  if (catalog?.resources === true) return catalog;
  const status = mount.summary().servers.find((entry) => entry.name === server);
  if (status === undefined) {
    throw new KernelError(
      KernelErrorCode.TOOL_INVALID_ARGUMENTS,
      `no server named ${quoted(server)} is mounted; list_resources without "server" names the servers that offer resources`,
    );
  }
  if (status.state !== 'connected') {
    const why =
      status.state === 'needs-login'
        ? `needs a login${status.login === undefined ? '' : ` (the user runs \`${status.login}\`)`}`
        : status.state === 'failed' && status.failure !== undefined
          ? `failed: ${status.failure.split('\n')[0] ?? ''}`
          : `is ${status.state}`;
    throw new KernelError(
      KernelErrorCode.MOUNT_FAILED,
      `server ${quoted(server)} is not connected, so its resources cannot be reached; it ${why}`,
    );
  }
  throw new KernelError(
    KernelErrorCode.TOOL_INVALID_ARGUMENTS,
    `server ${quoted(server)} offers no resources; list_resources without "server" names the servers that do`,
  );
}

/** Cancellation of the call (or its run) throws; anything else the plugin said is a failure. */
function rethrowCancel(error: unknown, ctx: ToolCallContext, what: string): void {
  if (isClatError(error) && error.code === KernelErrorCode.CANCELLED) throw error;
  if (ctx.signal.aborted) throw cancelledError(ctx.signal, what);
}

/** A plugin's failure as a ClatError that names `subject`, keeping the plugin's code. */
function pluginFailure(error: unknown, subject: string, prefix: string): ClatError {
  const message = errorMessage(error);
  const text = message.includes(subject) ? message : `${prefix}: ${message}`;
  const code = isClatError(error) ? error.code : KernelErrorCode.INTERNAL;
  return new ClatError(code, text, { cause: error });
}

function withOptional<T extends object>(target: T, source: object, keys: readonly string[]): T {
  for (const key of keys) {
    const value = (source as Record<string, unknown>)[key];
    if (value !== undefined) (target as Record<string, unknown>)[key] = value;
  }
  return target;
}

function listedResource(resource: CatalogResource): ListedResource {
  return withOptional({ uri: resource.uri, name: resource.name }, resource, [
    'title',
    'description',
    'mimeType',
    'size',
  ]);
}

function listedTemplate(template: CatalogResourceTemplate): ListedTemplate {
  return withOptional({ uriTemplate: template.uriTemplate, name: template.name }, template, [
    'title',
    'description',
    'mimeType',
  ]);
}

/** Serialized bytes of `value` in the result, plus a separator. */
const sizeOf = (value: unknown): number => utf8Length(JSON.stringify(value) ?? '') + 1;

type Loaded =
  | { server: string; resources: CatalogResource[]; templates: CatalogResourceTemplate[] }
  | { server: string; error: ClatError };

async function loadServer(
  server: string,
  catalog: PluginCatalog,
  ctx: ToolCallContext,
): Promise<Loaded> {
  try {
    const [resources, templates] = await Promise.all([
      catalog.listResources(ctx.signal),
      catalog.listResourceTemplates(ctx.signal),
    ]);
    return { server, resources, templates };
  } catch (error) {
    rethrowCancel(error, ctx, 'tool list_resources');
    const prefix = `listing the resources of server ${quoted(server)} failed`;
    return { server, error: pluginFailure(error, quoted(server), prefix) };
  }
}

/** The listing within the tool result limit: entries past it are dropped and marked truncated. */
function boundedListing(loaded: readonly Loaded[]): ResourceListing {
  let left = LIMITS.toolResultBytes - ENVELOPE_BYTES;
  const take = (value: unknown): boolean => {
    const bytes = sizeOf(value);
    if (bytes > left) return false;
    left -= bytes;
    return true;
  };
  const servers = loaded.map((entry): ResourceListingServer => {
    const out: ResourceListingServer = { server: entry.server, resources: [], templates: [] };
    if ('error' in entry) {
      const error = { code: entry.error.code, message: entry.error.message };
      if (take(error)) out.error = error;
      else out.truncated = true;
      return out;
    }
    for (const resource of entry.resources) {
      const item = listedResource(resource);
      if (out.truncated === undefined && take(item)) out.resources.push(item);
      else out.truncated = true;
    }
    for (const template of entry.templates) {
      const item = listedTemplate(template);
      if (out.truncated === undefined && take(item)) out.templates.push(item);
      else out.truncated = true;
    }
    return out;
  });
  return servers.length === 0
    ? { servers, note: 'no connected server offers resources' }
    : { servers };
}

/** The text of one content, or undefined for bytes shown as a placeholder. */
function textOf(content: CatalogContent): string | undefined {
  return content.kind === 'text' ? content.text : blobText(content);
}

/**
 * What the model reads of a resource: a single text content as it is; otherwise each content
 * under a `[resource <uri> <mime>]` line, binary content as `[binary <uri> <mime>, N bytes]`.
 */
function renderResourceRead(server: string, uri: string, read: ResourceRead): string {
  const { contents } = read;
  if (contents.length === 0) return `resource ${quoted(uri)} of server ${quoted(server)} is empty`;
  const only = contents.length === 1 ? contents[0] : undefined;
  const onlyText = only === undefined ? undefined : textOf(only);
  if (onlyText !== undefined) return onlyText;
  return contents
    .map((content) => {
      const at = content.uri ?? uri;
      const mime = content.mimeType === undefined ? '' : ` ${content.mimeType}`;
      const text = textOf(content);
      if (text !== undefined) return `[resource ${at}${mime}]\n${text}`;
      const bytes = content.kind === 'blob' ? content.bytes : utf8Length(content.text);
      return `[binary ${at}${mime}, ${bytes} bytes]`;
    })
    .join('\n');
}

function defineResourceTool(
  name: string,
  description: string,
  inputSchema: JsonObject,
  run: (args: JsonObject, ctx: ToolCallContext) => Promise<ToolResult>,
): Tool {
  return {
    definition: {
      name,
      description,
      inputSchema,
      effect: 'external-read',
      source: { kind: 'native', id: '' },
    },
    async invoke(args, ctx) {
      try {
        return await run(isJsonObject(args) ? args : {}, ctx);
      } catch (error) {
        rethrowCancel(error, ctx, `tool ${name}`);
        if (isClatError(error)) return failure(error);
        throw error;
      }
    },
  };
}

function listResourcesTool(mount: CatalogDirectory): Tool {
  return defineResourceTool(
    'list_resources',
    'List the resources (documents, files, records) and resource templates the connected plugin servers offer, as JSON naming the server of each. Give "server" to list one server only. Read one with read_resource.',
    {
      type: 'object',
      properties: {
        server: {
          type: 'string',
          description: 'Name of one server; omit to list every server that offers resources',
        },
      },
      additionalProperties: false,
    },
    async (args, ctx) => {
      onlyKnown('list_resources', args, ['server']);
      const server = stringArgument('list_resources', args, 'server', false);
      let loaded: Loaded[];
      if (server !== undefined) {
        const one = await loadServer(server, resourceCatalog(mount, server), ctx);
        if ('error' in one) return failure(one.error);
        loaded = [one];
      } else {
        const offering = mount.catalogNames().flatMap((name) => {
          const catalog = mount.catalog(name);
          return catalog?.resources === true ? [{ name, catalog }] : [];
        });
        loaded = await Promise.all(
          offering.map(({ name, catalog }) => loadServer(name, catalog, ctx)),
        );
      }
      const listing = boundedListing(loaded);
      return { content: JSON.stringify(listing), structured: listing };
    },
  );
}

function readResourceTool(mount: CatalogDirectory): Tool {
  return defineResourceTool(
    'read_resource',
    'Read one resource of a connected plugin server by its URI (from list_resources, a filled-in resource template, or a resource link a tool returned). Text comes back as text; binary content is described in one line, not shown.',
    {
      type: 'object',
      properties: {
        server: { type: 'string', description: 'Name of the server that offers the resource' },
        uri: { type: 'string', description: 'URI of the resource' },
      },
      required: ['server', 'uri'],
      additionalProperties: false,
    },
    async (args, ctx) => {
      onlyKnown('read_resource', args, ['server', 'uri']);
      const server = stringArgument('read_resource', args, 'server', true) as string;
      const uri = stringArgument('read_resource', args, 'uri', true) as string;
      const catalog = resourceCatalog(mount, server);
      let read: ResourceRead;
      try {
        read = await catalog.readResource(uri, ctx.signal);
      } catch (error) {
        rethrowCancel(error, ctx, 'tool read_resource');
        return failure(
          pluginFailure(
            error,
            quoted(uri),
            `server ${quoted(server)} could not read resource ${quoted(uri)}`,
          ),
        );
      }
      return { content: renderResourceRead(server, uri, read) };
    },
  );
}

/**
 * The resource tools over the host's mount: `list_resources` and `read_resource`, both
 * `external-read`. They read the mount at each call, so plugins that connect later are covered.
 */
export function createResourceTools(context: HostToolsContext): Tool[] {
  return [listResourcesTool(context.mount), readResourceTool(context.mount)];
}
