/** `clat prompts`: the prompts servers offer, as session slash commands; `get` renders one. @module */

import { formatPromptTable, formatRenderedPrompt } from '../catalog/catalog-text.js';
import { catalogOf, loadPrompts, serversOffering } from '../catalog/load-catalog.js';
import { bindPromptArguments } from '../catalog/prompt-arguments.js';
import { buildPromptCommands } from '../catalog/prompt-commands.js';
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

const USAGE = `Usage: clat prompts [<server>] [--json]
       clat prompts get <server> <prompt> [key=value | value ...] [--json]

Lists the prompts connected MCP servers offer, each with its session slash command
(/mcp__<server>__<prompt>) and arguments ([name] is optional). "get" renders one prompt with
string arguments: key=value for a named argument, plain values fill the arguments in order.
Prompts are only used when you invoke them; nothing is added to the model's context on its own.

Options:
${PROJECT_USAGE}
      --json           The exact prompts (or rendered messages) as JSON
`;

export const promptsCommand: Command = {
  name: 'prompts',
  summary: 'List server prompts (session slash commands) or render one',
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseFlags('prompts', argv, {
      ...PROJECT_OPTIONS,
      ...JSON_OPTION,
    });
    if (positionals[0] === 'get') return getPrompt(positionals.slice(1), values, io);
    const target = listTarget('prompts', 'get', positionals);
    return withCatalogServers(io, values, 'prompts', target, async (mount) => {
      const servers = target === undefined ? serversOffering(mount, 'prompts') : [target];
      const lists = await loadPrompts(mount, servers);
      const table = buildPromptCommands(lists);
      if (values.json === true) {
        const json = lists.map((list) => ({
          name: list.server,
          ...(list.error === undefined ? {} : { error: list.error }),
          prompts: (list.prompts ?? []).map((prompt) => {
            const entry = table.commands.find(
              (command) => command.server === list.server && command.prompt === prompt,
            );
            const skipped = table.skipped.find(
              (skip) => skip.server === list.server && skip.prompt === prompt.name,
            );
            return {
              ...prompt,
              command: entry === undefined ? null : `/${entry.command}`,
              ...(entry === undefined && skipped !== undefined ? { skipped: skipped.reason } : {}),
            };
          }),
        }));
        io.stdout.write(jsonOutput({ servers: json }, 'clat prompts'));
      } else {
        io.stdout.write(formatPromptTable(table));
      }
      // In --json too (stdout stays the exact JSON): which servers could not be asked.
      if (target === undefined) reportUnavailable(io, mount.summary(), values);
      return lists.some((list) => list.error !== undefined) ? 1 : 0;
    });
  },
};

async function getPrompt(args: string[], values: CatalogFlags, io: CommandIO): Promise<number> {
  const [server, name, ...words] = args;
  if (server === undefined || name === undefined) {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      `clat prompts get: name a server and a prompt; run "${projectCommand(['prompts'], values)}" for the list`,
    );
  }
  return withCatalogServers(io, values, 'prompts', server, async (mount) => {
    const catalog = catalogOf(mount, server, 'prompts');
    const prompt = (await catalog.listPrompts()).find((candidate) => candidate.name === name);
    if (prompt === undefined) {
      throw new CliError(
        CliErrorCode.CLI_USAGE,
        `server ${JSON.stringify(server)} has no prompt named ${JSON.stringify(name)}; run "${projectCommand(['prompts', server], values)}"`,
      );
    }
    const bound = bindPromptArguments(prompt, words);
    const rendered = await catalog.renderPrompt(name, bound);
    if (values.json === true) {
      io.stdout.write(
        jsonOutput({ server, prompt: name, arguments: bound, ...rendered }, 'clat prompts get'),
      );
    } else {
      io.stdout.write(formatRenderedPrompt(rendered));
    }
    return 0;
  });
}
