/** `clat tools`: the frozen tool surface of the trusted project (native and plugin tools). @module */
import { PROJECT_OPTIONS, PROJECT_USAGE, parseFlags } from '../cli-options.js';
import type { Command } from '../command.js';
import { waitForSurface, withProject } from '../project/with-project.js';
import { formatTools } from '../ui/tool-list.js';

const USAGE = `Usage: clat tools [--json]

Lists every registered tool with its effect and source, after the initial MCP surface settled.

Options:
${PROJECT_USAGE}
      --json           Full definitions including input schemas
`;

export const toolsCommand: Command = {
  name: 'tools',
  summary: 'List the registered tools (native, MCP, WASM) with effects',
  usage: USAGE,
  async run(argv, io) {
    const { values } = parseFlags('tools', argv, PROJECT_OPTIONS);
    return withProject(
      io,
      { project: values.project, trust: values.trust, promptForTrust: true },
      async (project) => {
        await waitForSurface(io, project);
        const tools = project.session.registry.list();
        if (values.json === true) {
          io.stdout.write(
            `${JSON.stringify({ tools, diagnostics: project.session.registry.diagnostics() }, null, 2)}\n`,
          );
        } else {
          io.stdout.write(formatTools(tools));
        }
        return 0;
      },
    );
  },
};
