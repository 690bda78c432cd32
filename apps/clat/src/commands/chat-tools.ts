/**
 * The session's `/tools [name]`: the registered tools in surface order, or, for a tool or server
 * name, their signatures and details.
 * @module
 */
import type { CommandIO } from '../command.js';
import type { OpenedProject } from '../project/open-project.js';
import { detailsWidth, terminalColumns } from '../ui/columns.js';
import { didYouMean } from '../ui/did-you-mean.js';
import { formatTools, inSurfaceOrder } from '../ui/tool-list.js';
import { formatToolDetails } from '../ui/tool-signature.js';

/** What `/tools` uses of the session. */
export interface ToolsContext {
  readonly io: CommandIO;
  readonly project: OpenedProject;
  /** The session's one output path (sanitised). */
  write(text: string): void;
}

/** Writes the tool list, or the details of `operand` (a tool or server name, as typed). */
export function sessionTools(ctx: ToolsContext, operand: string | undefined): void {
  const all = inSurfaceOrder(
    ctx.project.session.registry.list(),
    ctx.project.session.mount.summary().servers,
  );
  if (operand !== undefined) {
    // One tool, or every tool of one server, with signatures.
    const picked = all.filter((tool) => tool.name === operand || tool.source.id === operand);
    const server = ctx.project.session.mount
      .summary()
      .servers.find((entry) => entry.name === operand);
    ctx.write(
      picked.length > 0
        ? formatToolDetails(picked, detailsWidth(ctx.io.stdout))
        : server !== undefined
          ? `server ${JSON.stringify(operand)} has no tools (${server.state}); /mcp shows it\n`
          : `no tool or server named ${JSON.stringify(operand)}${didYouMean(operand, [
              ...all.map((tool) => tool.name),
              ...ctx.project.session.mount.summary().servers.map((entry) => entry.name),
            ])}; /tools lists them\n`,
    );
    return;
  }
  ctx.write(formatTools(all, terminalColumns(ctx.io.stdout)));
  if (ctx.project.session.mount.summary().connecting > 0) {
    ctx.write('(servers are still connecting; the list freezes at the first run)\n');
  }
}
