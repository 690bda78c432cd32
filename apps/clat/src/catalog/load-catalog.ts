/**
 * Reads the prompt and resource catalogs of connected servers, all at once; one server's failure
 * is reported with that server and never hides the others.
 * @module
 */
import {
  type CatalogResource,
  type CatalogResourceTemplate,
  errorMessage,
  type PluginCatalog,
  type PluginMount,
} from '@clat/kernel';
import { CliError, CliErrorCode } from '../errors.js';
import { unavailableLine } from '../ui/mcp-status.js';
import type { ServerPrompts } from './prompt-commands.js';

export interface ServerResources {
  server: string;
  resources: CatalogResource[];
  resourceTemplates: CatalogResourceTemplate[];
  error?: string;
}

type Kind = 'prompts' | 'resources';

/** Connected servers that offer `kind`, in configuration order. */
export function serversOffering(mount: PluginMount, kind: Kind): string[] {
  return mount.catalogNames().filter((name) => mount.catalog(name)?.[kind] === true);
}

/**
 * The catalog of one named server for `kind`, or a one-sentence error that says why not (not
 * configured, failed, waiting for a login, offers no such thing). `statusCommand` is the
 * `clat mcp` the error sends a person to (a command passes its project flags: project-command.ts).
 */
export function catalogOf(
  mount: PluginMount,
  server: string,
  kind: Kind,
  statusCommand = 'clat mcp',
): PluginCatalog {
  const catalog = mount.catalog(server);
  if (catalog?.[kind] === true) return catalog;
  const status = mount.summary().servers.find((entry) => entry.name === server);
  const name = JSON.stringify(server);
  if (status === undefined) {
    throw new CliError(
      CliErrorCode.CLI_SERVER_NOT_FOUND,
      `no server named ${name} is mounted; "${statusCommand}" shows every server (mcp.json, installed plugins, plugins.json, the GLM pack)`,
    );
  }
  if (status.state !== 'connected') {
    // The sentence `clat tools` and the listings use for a server that is not connected.
    throw new CliError(CliErrorCode.CLI_SERVER_NOT_FOUND, unavailableLine(status, statusCommand));
  }
  throw new CliError(CliErrorCode.CLI_SERVER_NOT_FOUND, `server ${name} offers no ${kind}`);
}

export function loadPrompts(
  mount: PluginMount,
  servers: readonly string[],
  signal?: AbortSignal,
): Promise<ServerPrompts[]> {
  return Promise.all(
    servers.map(async (server): Promise<ServerPrompts> => {
      try {
        const prompts = await catalogOf(mount, server, 'prompts').listPrompts(signal);
        return { server, prompts };
      } catch (error) {
        return { server, error: errorMessage(error) };
      }
    }),
  );
}

export function loadResources(
  mount: PluginMount,
  servers: readonly string[],
  signal?: AbortSignal,
): Promise<ServerResources[]> {
  return Promise.all(
    servers.map(async (server): Promise<ServerResources> => {
      try {
        const catalog = catalogOf(mount, server, 'resources');
        const [resources, resourceTemplates] = await Promise.all([
          catalog.listResources(signal),
          catalog.listResourceTemplates(signal),
        ]);
        return { server, resources, resourceTemplates };
      } catch (error) {
        return { server, resources: [], resourceTemplates: [], error: errorMessage(error) };
      }
    }),
  );
}
