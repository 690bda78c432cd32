/** `clat mcp login <name>` and `clat mcp logout <name>`: OAuth for remote MCP servers. @module */
import { expandServerVariables, type McpServerConfig, OAUTH_SCOPE_TOKEN } from '@clat/adapter-mcp';
import {
  HttpTransportErrorCode,
  isHttpTransportError,
  type OAuthClient,
  oauthFileFor,
} from '@clat/adapter-mcp-http';
import { sanitizeTerminalLine } from '@clat/kernel';
import { PROJECT_OPTIONS, parseFlags } from '../cli-options.js';
import type { CommandIO } from '../command.js';
import { resolveClatHome } from '../config/clat-home.js';
import { formatIssue } from '../config/mcp-config-file.js';
import { isTrusted, projectRootOf } from '../config/trust-store.js';
import { CliError, CliErrorCode } from '../errors.js';
import { loadConfiguredServers, serverNotFoundMessage } from '../project/configured-servers.js';
import { staticTokenCommand } from '../project/login-command.js';
import { oauthClientFor } from '../project/oauth-auth.js';
import { openBrowser } from '../ui/open-browser.js';

/** How long `clat mcp login` waits for the browser to come back. */
export const LOGIN_WAIT_MS = 300_000;

type HttpEntry = Extract<McpServerConfig, { transport: 'http' }>;

/** The entry to log in to, as the mount uses it (variables expanded), and its mcp.json. */
interface LoginTarget {
  server: HttpEntry;
  file: string;
  /** The url as written in mcp.json (references unexpanded: they may hide a token). */
  writtenUrl: string;
  /** The other configured entries that connect to the same URL, and so share its login. */
  sharing: string[];
}

/** `clat mcp logout`'s flags: the project's, as `clat mcp` takes them (no `--json`). */
const LOGOUT_OPTIONS = {
  project: PROJECT_OPTIONS.project,
  trust: PROJECT_OPTIONS.trust,
} as const;

/** `clat mcp login`'s: also Codex's `--scopes`, comma-separated (or repeated). */
const LOGIN_OPTIONS = {
  ...LOGOUT_OPTIONS,
  scopes: { type: 'string', multiple: true },
} as const;

/**
 * The scopes `--scopes` asks for, in order and once each; undefined without the flag. Commas
 * and spaces both separate (`--scopes "read write"` as a scope string is written too).
 */
function requestedScopes(given: readonly string[] | undefined): string[] | undefined {
  if (given === undefined) return undefined;
  const scopes = [...new Set(given.flatMap((value) => value.split(/[\s,]+/)))].filter(
    (scope) => scope !== '',
  );
  if (scopes.length === 0) {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      '--scopes needs at least one OAuth scope, comma-separated (--scopes read,write)',
    );
  }
  const bad = scopes.find((scope) => !OAUTH_SCOPE_TOKEN.test(scope));
  if (bad !== undefined) {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      `--scopes: ${JSON.stringify(bad)} is not an OAuth scope (printable ASCII without quotes or backslashes; separate scopes with commas)`,
    );
  }
  return scopes;
}

/**
 * Finds `<name>` where the mount does: the user's mcp.json, then the project's own
 * `.clat/mcp.json` (the current directory's, or `-C <dir>`'s) when the project is trusted, or
 * `--trust` trusts it for this run (else `clat mcp` never mounted it either). `openedRoot` is the
 * root of a session that already opened (so trusted) its project: the REPL's.
 */
async function httpEntry(
  io: CommandIO,
  verb: string,
  positionals: readonly string[],
  values: { project?: string | undefined; trust?: boolean | undefined },
  openedRoot?: string,
): Promise<LoginTarget> {
  const [name] = positionals;
  if (name === undefined || positionals.length > 1) {
    throw new CliError(CliErrorCode.CLI_USAGE, `clat mcp ${verb}: expected exactly one <name>`);
  }
  const home = resolveClatHome(io.env, io.cwd);
  const projectRoot = openedRoot ?? (await projectRootOf(values.project ?? '.', io.cwd, home));
  const trusted =
    openedRoot !== undefined ||
    values.trust === true ||
    (await isTrusted(home.trustFile, projectRoot));
  const { configured } = await loadConfiguredServers(home, trusted ? projectRoot : undefined);
  const found = configured.find((entry) => entry.server.name === name);
  if (found === undefined) {
    throw new CliError(
      CliErrorCode.CLI_SERVER_NOT_FOUND,
      serverNotFoundMessage(
        name,
        home,
        projectRoot,
        trusted,
        configured.map((entry) => entry.server.name),
      ),
    );
  }
  const { server, file } = found;
  if (server.transport !== 'http') {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      `server ${JSON.stringify(name)} is a stdio server; OAuth login applies only to HTTP servers (give stdio servers credentials through "env")`,
    );
  }
  // Tokens are stored under the URL the mount connects to: the expanded one.
  const expanded = expandServerVariables(server, { file, env: io.env, projectRoot });
  if ('issues' in expanded) {
    throw new CliError(
      CliErrorCode.CLI_CONFIG_INVALID,
      expanded.issues.map(formatIssue).join('; '),
    );
  }
  const url = (expanded.server as HttpEntry).url;
  const sharing = configured
    .filter((other) => {
      if (other === found || other.server.transport !== 'http') return false;
      const same = expandServerVariables(other.server, {
        file: other.file,
        env: io.env,
        projectRoot,
      });
      return !('issues' in same) && (same.server as HttpEntry).url === url;
    })
    .map((other) => other.server.name);
  return { server: expanded.server as HttpEntry, file, writtenUrl: server.url, sharing };
}

/** For a server that is no OAuth server: the `clat mcp add` that gives it a static token. */
function staticTokenHint(
  error: unknown,
  name: string,
  writtenUrl: string,
  headers: readonly string[],
): string {
  if (!isHttpTransportError(error) || error.code !== HttpTransportErrorCode.OAUTH_NO_METADATA) {
    return '';
  }
  return `; if it takes a token, run: ${staticTokenCommand(name, writtenUrl, headers)}`;
}

/** `signal` cancels the login as Ctrl-C does (the session's Esc and Ctrl-C). */
export async function login(
  argv: string[],
  io: CommandIO,
  openedRoot?: string,
  signal?: AbortSignal,
): Promise<number> {
  const { positionals, values } = parseFlags('mcp login', argv, LOGIN_OPTIONS);
  const scopes = requestedScopes(values.scopes);
  const { server, file, writtenUrl } = await httpEntry(
    io,
    'login',
    positionals,
    values,
    openedRoot,
  );
  const home = resolveClatHome(io.env, io.cwd);
  const oauth = oauthClientFor(server, home.dir);
  if (oauth === undefined) {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      `server ${JSON.stringify(server.name)} sends a configured Authorization header; remove it from "headers" in ${file} to use OAuth instead`,
    );
  }
  if (scopes !== undefined && server.oauth?.grant === 'client_credentials') {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      `--scopes applies to a browser login; server ${JSON.stringify(server.name)} uses the client_credentials grant, whose scopes are "oauth.scopes" in ${file}`,
    );
  }
  const abort = new AbortController();
  const onSigint = () => abort.abort(new Error('cancelled'));
  process.once('SIGINT', onSigint);
  signal?.addEventListener('abort', onSigint, { once: true });
  try {
    const result = await oauth.login(
      {
        signal: abort.signal,
        timeoutMs: LOGIN_WAIT_MS,
        open: async (url) => {
          io.stdout.write(
            `To log in to ${sanitizeTerminalLine(server.name)}, open this URL in a browser (waiting up to ${LOGIN_WAIT_MS / 60_000} minutes; Ctrl-C cancels):\n\n  ${sanitizeTerminalLine(url)}\n\n`,
          );
          await openBrowser(url, io.env);
        },
      },
      { scopes },
    );
    // Issuer and scope come from the authorization server: untrusted text.
    const scope =
      result.scope === undefined || result.scope.trim() === ''
        ? ''
        : ` with scope "${sanitizeTerminalLine(result.scope)}"${notGranted(scopes, result.scope)}`;
    const stored =
      server.oauth?.grant === 'client_credentials'
        ? 'client credentials are used on every run; nothing was stored'
        : `token saved to ${oauthFileFor(home.oauthDir, server.url)} (owner-only)${result.refreshable ? '' : '; no refresh token was issued, so log in again when it expires'}`;
    io.stdout.write(
      `Logged in to ${sanitizeTerminalLine(server.name)} at ${sanitizeTerminalLine(result.issuer)}${scope}; ${stored}\n`,
    );
    return 0;
  } catch (error) {
    if (isHttpTransportError(error) && error.code === HttpTransportErrorCode.OAUTH_NOT_REQUIRED) {
      // Nothing to do is not a failure: the server works as configured.
      io.stdout.write(
        `${sanitizeTerminalLine(server.name)} needs no login: ${sanitizeTerminalLine(error.message)}; nothing was stored\n`,
      );
      return 0;
    }
    const cancelled = abort.signal.aborted;
    throw new CliError(
      CliErrorCode.CLI_LOGIN_FAILED,
      cancelled
        ? `login to ${server.name} was cancelled; nothing was stored`
        : `login to ${server.name} failed: ${sanitizeTerminalLine((error as Error).message)}${staticTokenHint(error, server.name, writtenUrl, Object.keys(server.headers ?? {}))}`,
      { exitCode: cancelled ? 130 : 1, cause: error },
    );
  } finally {
    process.removeListener('SIGINT', onSigint);
    signal?.removeEventListener('abort', onSigint);
  }
}

/**
 * The scopes `--scopes` asked for that the authorization server left out of its grant (it may
 * narrow a request, RFC 6749 §3.3): said, since calls needing them will be refused.
 */
function notGranted(requested: readonly string[] | undefined, granted: string): string {
  if (requested === undefined) return '';
  const have = new Set(granted.split(/\s+/));
  const missing = requested.filter((scope) => !have.has(scope));
  return missing.length === 0 ? '' : ` (not granted: ${sanitizeTerminalLine(missing.join(' '))})`;
}

export async function logout(argv: string[], io: CommandIO): Promise<number> {
  const { positionals, values } = parseFlags('mcp logout', argv, LOGOUT_OPTIONS);
  const { server, sharing } = await httpEntry(io, 'logout', positionals, values);
  // A project's mcp.json names its servers: shown like any text from outside.
  const name = sanitizeTerminalLine(server.name);
  const home = resolveClatHome(io.env, io.cwd);
  const oauth = oauthClientFor(server, home.dir);
  const forgotten = oauth === undefined ? undefined : await forgetLogin(oauth, server);
  if (forgotten === undefined) {
    io.stdout.write(`No stored login for ${name}\n`);
    return 0;
  }
  // Tokens are kept per URL: every entry of that URL is logged out with this one.
  const also =
    sharing.length === 0
      ? ''
      : ` (and of ${sharing.map((other) => sanitizeTerminalLine(other)).join(', ')}, which ${sharing.length === 1 ? 'connects' : 'connect'} to the same URL)`;
  io.stdout.write(`Logged out of ${name}${also}; ${forgotten.done}\n`);
  if (forgotten.warning !== undefined) io.stderr.write(`warning: ${forgotten.warning}\n`);
  return 0;
}

/** What forgetting a login did: the sentence for stdout and, when revoking failed, a warning. */
interface ForgottenLogin {
  done: string;
  warning?: string;
}

/**
 * Revokes the stored tokens at the authorization server (when it offers RFC 7009 revocation),
 * then deletes them and the registered client; undefined when nothing was stored. A failed
 * revocation still deletes them: the person asked to be logged out here.
 */
async function forgetLogin(
  oauth: OAuthClient,
  server: HttpEntry,
): Promise<ForgottenLogin | undefined> {
  const revocation = await oauth.revoke();
  const removed = await oauth.logout();
  if (!removed) return undefined;
  // A client registered by hand is mcp.json's: nothing was registered, and it stays there.
  const deleted =
    server.oauth?.clientId === undefined
      ? 'its stored tokens and registered client were deleted'
      : 'its stored tokens were deleted';
  switch (revocation.state) {
    case 'revoked':
      return {
        done: `the authorization server ${sanitizeTerminalLine(revocation.issuer)} revoked its tokens, and ${deleted}`,
      };
    case 'unsupported':
      return {
        done: `${deleted} (the authorization server offers no token revocation, so a token already issued stays valid until it expires)`,
      };
    case 'failed':
      return {
        done: deleted,
        warning: `the authorization server did not revoke them: ${sanitizeTerminalLine(revocation.reason)}; a token already issued stays valid until it expires`,
      };
    default:
      return { done: deleted };
  }
}

/**
 * After `clat mcp remove`: the login of the removed HTTP entry, unless another configured entry
 * (the user's, or the trusted project's) still connects to the same URL, whose tokens
 * they share. Returns the sentence to add to "Removed …", or undefined.
 */
export async function forgetRemovedLogin(
  removed: McpServerConfig,
  io: CommandIO,
  /** The project whose file it was removed from (`-C`); else the current directory's. */
  root?: string,
): Promise<ForgottenLogin | undefined> {
  if (removed.transport !== 'http') return undefined;
  const home = resolveClatHome(io.env, io.cwd);
  const projectRoot = root ?? (await projectRootOf('.', io.cwd, home).catch(() => undefined));
  const trusted =
    projectRoot !== undefined && (await isTrusted(home.trustFile, projectRoot))
      ? projectRoot
      : undefined;
  const urlOf = (server: McpServerConfig): string | undefined => {
    if (server.transport !== 'http') return undefined;
    const expanded = expandServerVariables(server, {
      file: home.mcpFile,
      env: io.env,
      projectRoot: projectRoot ?? io.cwd,
    });
    return 'issues' in expanded ? server.url : (expanded.server as HttpEntry).url;
  };
  const url = urlOf(removed);
  const { configured } = await loadConfiguredServers(home, trusted);
  if (configured.some((entry) => urlOf(entry.server) === url)) return undefined;
  const target = { ...removed, url } as HttpEntry;
  const oauth = oauthClientFor(target, home.dir);
  return oauth === undefined ? undefined : forgetLogin(oauth, target);
}
