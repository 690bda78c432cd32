/** `clat mcp login <name>` and `clat mcp logout <name>`: OAuth for remote MCP servers. @module */
import type { McpServerConfig } from '@clat/adapter-mcp';
import { oauthFileFor } from '@clat/adapter-mcp-http';
import { sanitizeTerminalLine } from '@clat/kernel';
import { parseFlags } from '../cli-options.js';
import type { CommandIO } from '../command.js';
import { resolveClatHome } from '../config/clat-home.js';
import { loadMcpConfig } from '../config/mcp-config-file.js';
import { CliError, CliErrorCode } from '../errors.js';
import { oauthClientFor } from '../project/oauth-auth.js';
import { openBrowser } from '../ui/open-browser.js';

/** How long `clat mcp login` waits for the browser to come back. */
export const LOGIN_WAIT_MS = 300_000;

type HttpEntry = Extract<McpServerConfig, { transport: 'http' }>;

async function httpEntry(io: CommandIO, verb: string, argv: string[]): Promise<HttpEntry> {
  const { positionals } = parseFlags(`mcp ${verb}`, argv, {});
  const [name] = positionals;
  if (name === undefined || positionals.length > 1) {
    throw new CliError(CliErrorCode.CLI_USAGE, `clat mcp ${verb}: expected exactly one <name>`);
  }
  const home = resolveClatHome(io.env, io.cwd);
  const config = await loadMcpConfig(home.mcpFile);
  const server = config.servers.find((s) => s.name === name);
  if (server === undefined) {
    throw new CliError(
      CliErrorCode.CLI_SERVER_NOT_FOUND,
      `${home.mcpFile}: no server named ${JSON.stringify(name)}`,
    );
  }
  if (server.transport !== 'http') {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      `server ${JSON.stringify(name)} is a stdio server; OAuth login applies only to HTTP servers (give stdio servers credentials through "env")`,
    );
  }
  return server;
}

export async function login(argv: string[], io: CommandIO): Promise<number> {
  const server = await httpEntry(io, 'login', argv);
  const home = resolveClatHome(io.env, io.cwd);
  const oauth = oauthClientFor(server, home.dir);
  if (oauth === undefined) {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      `server ${JSON.stringify(server.name)} sends a configured Authorization header; remove it from "headers" in ${home.mcpFile} to use OAuth instead`,
    );
  }
  const abort = new AbortController();
  const onSigint = () => abort.abort(new Error('cancelled'));
  process.once('SIGINT', onSigint);
  try {
    const result = await oauth.login({
      signal: abort.signal,
      timeoutMs: LOGIN_WAIT_MS,
      open: async (url) => {
        io.stdout.write(
          `To log in to ${server.name}, open this URL in a browser (waiting up to ${LOGIN_WAIT_MS / 60_000} minutes; Ctrl-C cancels):\n\n  ${sanitizeTerminalLine(url)}\n\n`,
        );
        await openBrowser(url, io.env);
      },
    });
    // Issuer and scope come from the authorization server: untrusted text.
    const scope =
      result.scope === undefined ? '' : ` with scope "${sanitizeTerminalLine(result.scope)}"`;
    const stored =
      server.oauth?.grant === 'client_credentials'
        ? 'client credentials are used on every run; nothing was stored'
        : `token saved to ${oauthFileFor(home.oauthDir, server.url)} (owner-only)${result.refreshable ? '' : '; no refresh token was issued, so log in again when it expires'}`;
    io.stdout.write(
      `Logged in to ${server.name} at ${sanitizeTerminalLine(result.issuer)}${scope}; ${stored}\n`,
    );
    return 0;
  } catch (error) {
    const cancelled = abort.signal.aborted;
    throw new CliError(
      CliErrorCode.CLI_LOGIN_FAILED,
      cancelled
        ? `login to ${server.name} was cancelled; nothing was stored`
        : `login to ${server.name} failed: ${sanitizeTerminalLine((error as Error).message)}`,
      { exitCode: cancelled ? 130 : 1, cause: error },
    );
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}

export async function logout(argv: string[], io: CommandIO): Promise<number> {
  const server = await httpEntry(io, 'logout', argv);
  const home = resolveClatHome(io.env, io.cwd);
  const oauth = oauthClientFor(server, home.dir);
  const removed = (await oauth?.logout()) ?? false;
  io.stdout.write(
    removed
      ? `Logged out of ${server.name}; its stored tokens and registered client were deleted\n`
      : `No stored login for ${server.name}\n`,
  );
  return 0;
}
