/** `clat tools`: the frozen tool surface of the trusted project (native and plugin tools). @module */
import { type MountSummary, sanitizeTerminalLine } from '@clat/kernel';
import { JSON_OPTION, PROJECT_OPTIONS, PROJECT_USAGE, parseFlags } from '../cli-options.js';
import type { Command, CommandIO } from '../command.js';
import { existingServerNames } from '../config/mcp-config-file.js';
import { CliError, CliErrorCode } from '../errors.js';
import { mcpStatusCommand, projectCommand } from '../project/project-command.js';
import { ownersOf } from '../project/select-entries.js';
import { waitForSurface, withProject } from '../project/with-project.js';
import { detailsWidth, terminalColumns } from '../ui/columns.js';
import { didYouMean } from '../ui/did-you-mean.js';
import { jsonOutput } from '../ui/json-output.js';
import { skippedToolLines, unavailableLine } from '../ui/mcp-status.js';
import { formatTools, inSurfaceOrder } from '../ui/tool-list.js';
import { formatToolDetails } from '../ui/tool-signature.js';
import { reportUnavailable } from './catalog-servers.js';

const USAGE = `Usage: clat tools [<server> | <tool>] [--server <name>] [--json]

Lists every registered tool with its effect and source, after the initial MCP surface settled;
each server that did not connect (failed, needs login) is named on stderr.
With a server name (or --server), only that server is started and each of its tools is shown
with its signature, arguments and full description; with a tool name, that one tool.

Options:
${PROJECT_USAGE}
      --server <name>  Start and show only this configured server
      --json           Full definitions including input schemas
`;

export const toolsCommand: Command = {
  name: 'tools',
  summary: 'List the registered tools (native, MCP, WASM) with effects and signatures',
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseFlags('tools', argv, {
      ...PROJECT_OPTIONS,
      ...JSON_OPTION,
      server: { type: 'string' },
    });
    if (positionals.length > 1 || (positionals.length === 1 && values.server !== undefined)) {
      throw new CliError(
        CliErrorCode.CLI_USAGE,
        'clat tools: name at most one server or tool (or use --server <name>)',
      );
    }
    const target = values.server ?? positionals[0];
    const owners = target === undefined ? undefined : ownersOf(target);
    return withProject(
      io,
      {
        project: values.project,
        trust: values.trust,
        promptForTrust: true,
        modelOptional: true,
        // A name is a server's (any source) or a tool's: start the server of that name and the
        // servers that could own such a tool, nothing else.
        ...(target === undefined
          ? {}
          : {
              select: (entry: { name: string; kind: string }) =>
                entry.name === target || (values.server === undefined && owners?.(entry) === true),
            }),
      },
      async (project) => {
        await waitForSurface(io, project);
        const summary = project.session.mount.summary();
        const server = summary.servers.find((entry) => entry.name === target);
        const asServer = values.server !== undefined || server !== undefined;
        const all = inSurfaceOrder(project.session.registry.list(), summary.servers);
        const tools =
          target === undefined
            ? all
            : all.filter((tool) => (asServer ? tool.source.id === target : tool.name === target));
        if (target !== undefined && tools.length === 0) {
          if (asServer && server === undefined) {
            throw new CliError(
              CliErrorCode.CLI_SERVER_NOT_FOUND,
              `no server named ${JSON.stringify(target)} is mounted; "${mcpStatusCommand(values)}" shows every server (mcp.json, installed plugins, plugins.json, the GLM pack)`,
            );
          }
          if (asServer && server !== undefined && server.state !== 'connected') {
            // Not connected when the registries froze; the same sentence as the full listing's.
            io.stderr.write(`clat: ${unavailableLine(server, mcpStatusCommand(values))}\n`);
            return 1;
          }
          if (!asServer) {
            // Not found is not a usage error: exit 1, as for an unknown --server.
            throw new CliError(
              CliErrorCode.CLI_SERVER_NOT_FOUND,
              `no server or tool named ${JSON.stringify(target)}${didYouMean(target, [
                // Only the servers that could own it were started: the others are in mcp.json.
                ...(await existingServerNames(project.home.mcpFile).catch(() => [])),
                ...summary.servers.map((entry) => entry.name),
                ...all.map((tool) => tool.name),
              ])}; run "${projectCommand(['tools'], values)}" for the list`,
            );
          }
        }
        if (values.json === true) {
          io.stdout.write(
            jsonOutput(
              { tools, diagnostics: project.session.registry.diagnostics() },
              'clat tools',
            ),
          );
          // stdout stays the exact JSON; what is missing from it goes to stderr, as in text.
          if (target === undefined) reportMissing(io, summary, values);
        } else if (target !== undefined && tools.length === 0) {
          // A connected server that registered none (prompts or resources only, or withheld).
          io.stdout.write(`server ${sanitizeTerminalLine(JSON.stringify(target))} has no tools\n`);
          // Tools it listed but CLAT left out (withheld, bad schemas): say so, not "none".
          for (const warning of server?.warnings ?? []) {
            io.stdout.write(`  ${sanitizeTerminalLine(warning)}\n`);
          }
        } else if (target !== undefined) {
          io.stdout.write(formatToolDetails(tools, detailsWidth(io.stdout)));
        } else {
          io.stdout.write(formatTools(tools, terminalColumns(io.stdout)));
          // The list shows what connected: say which servers and tools are missing, and why.
          reportMissing(io, summary, values);
        }
        return 0;
      },
    );
  },
};

function reportMissing(
  io: CommandIO,
  summary: MountSummary,
  values: { project?: string | undefined; trust?: boolean | undefined },
): void {
  reportUnavailable(io, summary, values);
  for (const text of skippedToolLines(summary, mcpStatusCommand(values))) {
    io.stderr.write(`clat: ${text}\n`);
  }
}
