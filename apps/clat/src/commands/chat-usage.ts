/**
 * The texts of the interactive session: `clat chat --help`, `/help`, and the session's own
 * commands that "did you mean" offers.
 * @module
 */
import { MODE_USAGE, PROJECT_USAGE } from '../cli-options.js';

export const USAGE = `Usage: clat [chat] [--mode <mode>]

Interactive session in the current (trusted) project. MCP servers connect in the background;
the first tool call or prompt waits for them (at most the initial-surface limit), then the tool
registry freezes for the session.

Commands inside the session:
  /mcp                 MCP server status (counts, versions, tools, failures)
  /tools [name]        Registered tools; with a tool or server name, signatures and details
  /call <tool> [args]  Call one tool through the permission pipeline; args: one JSON
                       object, or key=value pairs typed by its schema (text="a b" limit=5)
  /prompts             Server prompts as slash commands: /mcp__<server>__<prompt> [args]
                       (args: key=value, or values in the prompt's argument order)
  /resources [server]  Server resources and templates
  @<server>:<uri>      In a message: attach that resource to it (text as text, binary as a
                       placeholder; at most the 1 MiB result limit per message)
  /mode [mode]         Show or set the permission mode
  /login <server> [--scopes a,b]
                       OAuth login to an HTTP server; its tools join before the first run
                       (--scopes: ask for exactly these scopes, as clat mcp login does)
  /help, /exit (or /quit)
  anything else        A prompt for the configured model (~/.clat/config.json)
Tab completes the commands, the prompts' slash commands, and the tool, server or mode a
command takes. Esc or Ctrl-C cancels the running tool call or model turn (or the first call's
wait for servers); Esc or Ctrl-D at a question cancels the question. Ctrl-C at the prompt clears
the line; on an empty line, and Ctrl-D, end the session.

Options:
${PROJECT_USAGE}
${MODE_USAGE}
`;

/** The session's own commands, for "did you mean". */
export const SESSION_COMMANDS = [
  '/exit',
  '/quit',
  '/help',
  '/mcp',
  '/tools',
  '/call',
  '/login',
  '/prompts',
  '/resources',
  '/mode',
];
export const HELP = `/mcp  /tools [name]  /call <tool> [json | key=value ...]  /prompts  /resources [server]
/login <server> [--scopes a,b]  /mode [read-only|project-write|full-access]  /help  /exit (or /quit)
/mcp__<server>__<prompt> [args] runs a server prompt; @<server>:<uri> in a message attaches a resource.
Tab completes commands, tools and servers. Esc or Ctrl-C cancels the running call; Esc or Ctrl-D at a question cancels the question.
Ctrl-D at the prompt (or Ctrl-C on an empty line) ends the session.\n`;
