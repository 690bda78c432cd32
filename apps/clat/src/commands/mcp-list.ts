/**
 * `clat mcp list` and `clat mcp get <name>`: the entries of `~/.clat/mcp.json` and, for a trusted
 * project (the current directory's or `-C <dir>`'s), of its own `.clat/mcp.json`, as the mount
 * merges them. Nothing is started; values of env vars and headers are never printed.
 * @module
 */
import { existsSync } from 'node:fs';
import {
  describeServerConfig,
  expandServerVariables,
  type McpServerConfig,
} from '@clat/adapter-mcp';
import {
  type ConfigIssue,
  hideCredentialSegments,
  redactArgs,
  redactSecrets,
  sanitizeTerminalLine,
  shellWord,
} from '@clat/kernel';
import { PROJECT_OPTIONS, parseFlags } from '../cli-options.js';
import type { CommandIO } from '../command.js';
import { type ClatHome, projectMcpFile, resolveClatHome } from '../config/clat-home.js';
import { danglingLinkTarget } from '../config/link-target.js';
import { formatIssue, type LoadedMcpConfig, loadMcpConfig } from '../config/mcp-config-file.js';
import { isTrusted, projectRootOf } from '../config/trust-store.js';
import { CliError, CliErrorCode } from '../errors.js';
import { serverNotFoundMessage, untrustedProjectNote } from '../project/configured-servers.js';
import { operandCommand, type ProjectFlagsShown } from '../project/project-command.js';
import { jsonOutput } from '../ui/json-output.js';

/** describeServerConfig's shape: names of env vars and headers only, never their values. */
interface ListedServer {
  name: string;
  transport: 'stdio' | 'http';
  /** `sse`: the entry picks HTTP+SSE. */
  type?: 'sse';
  url?: string;
  headers?: string[];
  command?: string;
  args?: string[];
  env?: string[];
  cwd?: string;
  origin: string;
  disabled?: boolean;
  /** `false`: the project root is not offered as an MCP root. */
  roots?: boolean;
  /** A project entry the user's same-named entry replaces (it is not mounted). */
  replaced?: true;
  /** The OAuth client settings, a secret as `(set)` (describeServerConfig's). */
  oauth?: { clientId?: string; clientSecret?: string; callbackPort?: number; grant?: string };
  includeTools?: string[];
  excludeTools?: string[];
  /** A stored OAuth login of an HTTP entry (never its tokens). */
  login?: ListedLogin;
  /**
   * Why the login file of an HTTP entry is not used (unreadable, damaged, a newer CLAT's), with
   * the command that logs in again; the mount takes such a file for no login.
   */
  loginProblem?: string;
}

/** What `clat mcp login` stored for an entry's URL, without the tokens themselves. */
interface ListedLogin {
  /** The authorization server, as it named itself (untrusted text). */
  issuer?: string;
  /** The scope it granted, space-separated (untrusted text). */
  scope?: string;
  /** When the access token expires (ISO 8601), when the authorization server said. */
  expiresAt?: string;
  /** A refresh token is stored: an expired access token is renewed at the next start. */
  refreshable: boolean;
}

/** "expires in 59 min" / "expired …": how the stored access token stands at `now`. */
function expiryText(login: ListedLogin, now: number): string | undefined {
  if (login.expiresAt === undefined) return undefined;
  const left = Date.parse(login.expiresAt) - now;
  if (left <= 0) {
    return login.refreshable
      ? 'token expired, refreshed at the next start'
      : 'token expired, log in again';
  }
  const minutes = Math.ceil(left / 60_000);
  return minutes < 120 ? `expires in ${minutes} min` : `expires in ${Math.round(minutes / 60)} h`;
}

/** The login part of the text line (issuer and scope come from the authorization server). */
function loginText(login: ListedLogin): string {
  const parts = [`logged in${login.issuer === undefined ? '' : ` at ${login.issuer}`}`];
  if (login.scope !== undefined && login.scope.trim() !== '') parts.push(`scope "${login.scope}"`);
  const expiry = expiryText(login, Date.now());
  if (expiry !== undefined) parts.push(expiry);
  return parts.join(', ');
}

/**
 * The logins stored for the HTTP entries among `servers` (read from the token files, keyed by
 * the URL the mount connects to, variables expanded); nothing is contacted. An entry whose
 * variables do not expand has none here (its config issue is said anyway).
 */
async function storedLogins(
  servers: readonly { server: McpServerConfig; listed: ListedServer; file: string }[],
  home: ClatHome,
  env: NodeJS.ProcessEnv,
  projectRoot: string,
  flags: ProjectFlagsShown,
): Promise<void> {
  const http = servers.filter(({ server }) => server.transport === 'http');
  if (http.length === 0) return;
  const { FileTokenStore } = await import('@clat/adapter-mcp-http');
  const store = new FileTokenStore(home.oauthDir);
  await Promise.all(
    http.map(async ({ server, listed, file }) => {
      const expanded = expandServerVariables(server, { file, env, projectRoot });
      if ('issues' in expanded || expanded.server.transport !== 'http') return;
      const record = await store.read(expanded.server.url);
      const tokens = record?.tokens;
      if (record === undefined) {
        const problem = await store.problem(expanded.server.url);
        if (problem !== undefined) {
          listed.loginProblem = `login not used: ${problem}; "${operandCommand(['mcp', 'login'], server.name, flags)}" logs in again, replacing it`;
        }
      }
      if (tokens === undefined) return;
      const login: ListedLogin = { refreshable: tokens.refreshToken !== undefined };
      if (record?.issuer !== undefined) login.issuer = record.issuer;
      if (tokens.scope !== undefined) login.scope = tokens.scope;
      if (tokens.expiresAt !== undefined)
        login.expiresAt = new Date(tokens.expiresAt).toISOString();
      listed.login = login;
    }),
  );
}

/**
 * What the text line adds after the target: the tool filters and a configured OAuth client,
 * which otherwise only `--json` would show.
 */
function settingsOf(server: ListedServer): string {
  const parts: string[] = [];
  if (server.includeTools !== undefined) parts.push(`only tools ${server.includeTools.join(', ')}`);
  if (server.excludeTools !== undefined) parts.push(`no tools ${server.excludeTools.join(', ')}`);
  const oauth = server.oauth;
  if (oauth?.clientId !== undefined) {
    const more = [
      ...(oauth.clientSecret === undefined ? [] : ['secret set']),
      ...(oauth.callbackPort === undefined ? [] : [`callback port ${oauth.callbackPort}`]),
      ...(oauth.grant === undefined ? [] : [oauth.grant]),
    ];
    parts.push(
      `OAuth client ${JSON.stringify(oauth.clientId)}${more.length === 0 ? '' : `, ${more.join(', ')}`}`,
    );
  } else if (oauth?.callbackPort !== undefined) {
    parts.push(`OAuth callback port ${oauth.callbackPort}`);
  }
  if (server.login !== undefined) parts.push(loginText(server.login));
  if (server.loginProblem !== undefined) parts.push(server.loginProblem);
  return parts.length === 0 ? '' : sanitizeTerminalLine(`  (${parts.join('; ')})`);
}

/**
 * A listed entry with URL credentials (userinfo, secret query parameters, token-like path
 * segments) and secret args redacted.
 */
function listed(server: McpServerConfig): ListedServer {
  const out = {
    name: server.name,
    ...(describeServerConfig(server) as Omit<ListedServer, 'name'>),
  } as ListedServer;
  if (out.url !== undefined) out.url = redactSecrets(hideCredentialSegments(out.url));
  if (out.args !== undefined) out.args = redactArgs(out.args);
  return out;
}

/** The project's own mcp.json: read when trusted, else only named (the mount would not read it). */
interface ProjectConfig {
  root: string;
  file: string;
  config: LoadedMcpConfig | undefined;
}

async function projectConfig(
  home: ClatHome,
  io: CommandIO,
  values: { project?: string | undefined; trust?: boolean | undefined },
): Promise<ProjectConfig | undefined> {
  const root = await projectRootOf(values.project ?? '.', io.cwd, home);
  const file = projectMcpFile(root);
  if (!existsSync(file)) return undefined;
  const trusted = values.trust === true || (await isTrusted(home.trustFile, root));
  return { root, file, config: trusted ? await loadMcpConfig(file, 'project') : undefined };
}

function line(io: CommandIO, server: ListedServer, home: ClatHome, debug: boolean): void {
  const headers = server.headers ?? [];
  // A command as a POSIX shell reads it: pasted, each word stays one word and nothing expands.
  const target = sanitizeTerminalLine(
    server.transport === 'http'
      ? `${server.url}${headers.length > 0 ? ` headers: ${headers.join(', ')}` : ''}`
      : [server.command ?? '', ...(server.args ?? [])].map((word) => shellWord(word)).join(' '),
  );
  const notes = `${settingsOf(server)}${server.disabled === true ? '  (disabled)' : ''}${server.roots === false ? '  (roots not offered)' : ''}${server.replaced === true ? `  (replaced by the same-named entry in ${home.mcpFile})` : ''}`;
  io.stdout.write(
    `  ${sanitizeTerminalLine(server.name)}  ${server.type === 'sse' ? 'sse' : server.transport}  ${target}${notes}\n`,
  );
  if (debug && server.transport === 'stdio') {
    // Troubleshooting step 3: run it by hand from the same directory CLAT uses.
    const env = sanitizeTerminalLine((server.env ?? []).map((name) => `${name}=…`).join(' '));
    const cwd = server.cwd === undefined ? home.dir : `${home.dir}/${server.cwd}`;
    io.stdout.write(
      `  to debug, run it by hand: cd ${sanitizeTerminalLine(shellWord(server.cwd?.startsWith('/') ? server.cwd : cwd))} && ${env === '' ? '' : `${env} `}${target}\n`,
    );
  }
}

/** `clat mcp list` (`one` undefined) or `clat mcp get <one>`. */
export async function list(argv: string[], io: CommandIO, one?: string): Promise<number> {
  const { values, positionals } = parseFlags(one === undefined ? 'mcp list' : 'mcp get', argv, {
    json: { type: 'boolean' },
    project: PROJECT_OPTIONS.project,
    trust: PROJECT_OPTIONS.trust,
  });
  if (positionals.length > 0) {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      one === undefined
        ? `clat mcp list takes no arguments, not ${JSON.stringify(positionals[0])}; "clat mcp get <name>" shows one server`
        : `clat mcp get takes one name; a name with a space goes in quotes: clat mcp get ${shellWord([one, ...positionals].join(' '))}`,
    );
  }
  const home = resolveClatHome(io.env, io.cwd);
  const config = await loadMcpConfig(home.mcpFile);
  const project = await projectConfig(home, io, values);
  const userNames = new Set(config.servers.map((server) => server.name));
  const userServers = config.servers.map(listed);
  const projectServers = (project?.config?.servers ?? []).map((server) => {
    const out = listed(server);
    if (userNames.has(server.name)) out.replaced = true;
    return out;
  });
  await storedLogins(
    [
      ...config.servers.map((server, i) => ({
        server,
        listed: userServers[i] as ListedServer,
        file: home.mcpFile,
      })),
      ...(project?.config?.servers ?? []).map((server, i) => ({
        server,
        listed: projectServers[i] as ListedServer,
        file: project?.file as string,
      })),
    ].filter(({ server }) => one === undefined || server.name === one),
    home,
    io.env,
    project?.root ?? io.cwd,
    values,
  );
  const issues = [...config.issues, ...(project?.config?.issues ?? [])].map(formatIssue);
  if (one !== undefined) {
    const all = [...userServers, ...projectServers];
    const code = get(io, one, values.json === true, home, project, all, [
      ...config.issues,
      ...(project?.config?.issues ?? []),
    ]);
    for (const issue of issues) io.stderr.write(`clat: config: ${sanitizeTerminalLine(issue)}\n`);
    return code;
  }
  // As `clat mcp`: an entry or a whole file skipped for a config issue is a failure (exit 1).
  const exit = issues.length > 0 ? 1 : 0;
  if (values.json === true) {
    const out: Record<string, unknown> = { file: home.mcpFile, servers: userServers, issues };
    if (project !== undefined) {
      out.project =
        project.config === undefined
          ? { file: project.file, trusted: false }
          : { file: project.file, trusted: true, servers: projectServers };
    }
    io.stdout.write(jsonOutput(out, 'clat mcp list'));
    return exit;
  }
  const dangling = config.exists ? undefined : await danglingLinkTarget(home.mcpFile);
  const state = config.exists
    ? ''
    : dangling === undefined
      ? ' (does not exist yet)'
      : ` (is a link to ${dangling}, which does not exist)`;
  io.stdout.write(`${home.mcpFile}${state}\n`);
  if (userServers.length === 0) {
    io.stdout.write(
      config.issues.length > 0 ? '  (no usable servers; see below)\n' : '  (no servers)\n',
    );
  }
  for (const server of userServers) line(io, server, home, false);
  if (project !== undefined) {
    if (project.config === undefined) {
      io.stdout.write(`${untrustedProjectNote(home, project.root)}\n`);
    } else {
      io.stdout.write(`${project.file} (the project's own)\n`);
      if (projectServers.length === 0) io.stdout.write('  (no usable servers)\n');
      for (const server of projectServers) line(io, server, home, false);
    }
  }
  for (const issue of issues) io.stderr.write(`clat: config: ${sanitizeTerminalLine(issue)}\n`);
  return exit;
}

function get(
  io: CommandIO,
  one: string,
  json: boolean,
  home: ClatHome,
  project: ProjectConfig | undefined,
  servers: ListedServer[],
  issues: ConfigIssue[],
): number {
  // The user's entry first: the mount uses it over a same-named project entry.
  const server = servers.find((entry) => entry.name === one);
  if (server === undefined) {
    // Its own entry's problems, or a whole file that could not be read (not JSON, no
    // "mcpServers" object): the name may be in it, so "no server named" would mislead.
    const bad = issues.filter(
      (issue) =>
        issue.path === one ||
        issue.path.startsWith(`${one}.`) ||
        issue.path === '(root)' ||
        issue.path === 'mcpServers',
    );
    if (bad.length > 0) {
      throw new CliError(CliErrorCode.CLI_CONFIG_INVALID, bad.map(formatIssue).join('\n'));
    }
    const root = project?.root ?? io.cwd;
    throw new CliError(
      CliErrorCode.CLI_SERVER_NOT_FOUND,
      serverNotFoundMessage(
        one,
        home,
        root,
        project?.config !== undefined,
        servers.map((entry) => entry.name),
      ),
    );
  }
  if (json) io.stdout.write(jsonOutput(server, 'clat mcp get'));
  else line(io, server, home, true);
  return 0;
}
