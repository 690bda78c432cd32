/** `clat resources`: what servers offer to read (resources and templates); `read` reads one. @module */

import { sanitizeTerminalLine } from '@clat/kernel';
import { formatResourceRead, formatResources } from '../catalog/catalog-text.js';
import { catalogOf, loadResources, serversOffering } from '../catalog/load-catalog.js';
import { JSON_OPTION, PROJECT_OPTIONS, PROJECT_USAGE, parseFlags } from '../cli-options.js';
import type { Command, CommandIO } from '../command.js';
import { CliError, CliErrorCode } from '../errors.js';
import { projectCommand } from '../project/project-command.js';
import { jsonOutput } from '../ui/json-output.js';
import {
  type CatalogFlags,
  listTarget,
  reportUnavailable,
  withCatalogServers,
} from './catalog-servers.js';

const USAGE = `Usage: clat resources [<server>] [--json]
       clat resources read <server> <uri> [--json]

Lists the resources and resource templates connected MCP servers offer (every page), and reads
one resource. Text is shown as text (so is a base64 blob of UTF-8 text/*, JSON or XML), other
binary content as a placeholder (--json has it exactly, in base64). In a session,
@<server>:<uri> attaches a resource to your next message.

Options:
${PROJECT_USAGE}
      --json           The exact listing (or contents) as JSON
`;

export const resourcesCommand: Command = {
  name: 'resources',
  summary: 'List server resources and templates, or read one',
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseFlags('resources', argv, {
      ...PROJECT_OPTIONS,
      ...JSON_OPTION,
    });
    if (positionals[0] === 'read') return readResource(positionals.slice(1), values, io);
    const target = listTarget('resources', 'read', positionals);
    return withCatalogServers(io, values, 'resources', target, async (mount) => {
      const servers = target === undefined ? serversOffering(mount, 'resources') : [target];
      const lists = await loadResources(mount, servers);
      if (values.json === true) {
        const json = lists.map(({ server, ...rest }) => ({ name: server, ...rest }));
        io.stdout.write(jsonOutput({ servers: json }, 'clat resources'));
      } else {
        if (lists.length === 0) io.stdout.write('(no server offers resources)\n');
        for (const list of lists) {
          if (list.error !== undefined) {
            io.stdout.write(
              `resources of ${sanitizeTerminalLine(list.server)} failed: ${sanitizeTerminalLine(list.error)}\n`,
            );
          } else {
            io.stdout.write(formatResources(list.server, list.resources, list.resourceTemplates));
          }
        }
      }
      // In --json too (stdout stays the exact JSON): which servers could not be asked.
      if (target === undefined) reportUnavailable(io, mount.summary(), values);
      return lists.some((list) => list.error !== undefined) ? 1 : 0;
    });
  },
};

async function readResource(args: string[], values: CatalogFlags, io: CommandIO): Promise<number> {
  const [server, uri, extra] = args;
  if (server === undefined || uri === undefined || extra !== undefined) {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      `clat resources read: name one server and one URI; run "${projectCommand(['resources'], values)}" for the list`,
    );
  }
  return withCatalogServers(io, values, 'resources', server, async (mount) => {
    const read = await catalogOf(mount, server, 'resources').readResource(uri);
    if (values.json === true) {
      io.stdout.write(jsonOutput({ server, uri, ...read }, 'clat resources read'));
    } else {
      io.stdout.write(formatResourceRead(read));
    }
    return 0;
  });
}
