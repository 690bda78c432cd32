/** `clat mcp`: status of the project's MCP surface, and safe edits of the user's and the project's mcp.json. @module */

import { parseServerEntry } from '@clat/adapter-mcp';
import { shellWord } from '@clat/kernel';
import { JSON_OPTION, PROJECT_OPTIONS, PROJECT_USAGE, parseFlags } from '../cli-options.js';
import type { Command, CommandIO } from '../command.js';
import { projectMcpFile, resolveClatHome } from '../config/clat-home.js';
import {
  existingServerNames,
  removeServerEntry,
  setServerDisabled,
} from '../config/mcp-config-file.js';
import { projectRootOf } from '../config/trust-store.js';
import { CliError, CliErrorCode } from '../errors.js';
import { foreignCommand } from '../foreign-commands.js';
import { GET_STREAM_SETTLE_MS, waitForGetStreams } from '../project/get-streams.js';
import { waitForSurface, withProject } from '../project/with-project.js';
import { didYouMean } from '../ui/did-you-mean.js';
import { jsonOutput } from '../ui/json-output.js';
import { formatMcpStatus, mcpStatusJson } from '../ui/mcp-status.js';
import { add, isInstalledPlugin } from './mcp-add.js';
import { list } from './mcp-list.js';
import { type EditTarget, editTarget, SCOPE_OPTIONS } from './mcp-scope.js';

const USAGE = `Usage: clat mcp [status] [--json]
       clat mcp list [-C <dir>] [--trust] [--json]
       clat mcp get <name> [-C <dir>] [--trust] [--json]
       clat mcp add <name> [--scope user|project] [--env K=V]... [--cwd <dir>] [--no-roots] [--include-tools a,b] [--exclude-tools c*] [--force] -- <command> [args...]
       clat mcp add <name> <url> [--scope user|project] [--transport http|sse] [--header "Name: value"]... [--bearer-token-env-var NAME] [--client-id <id> [--client-secret] [--callback-port <port>]] [--include-tools a,b] [--exclude-tools c*] [--force]
       clat mcp add-json [<name>] '<json>' [--scope user|project] [--force]
       clat mcp remove <name> [--scope user|project]
       clat mcp login <name> [--scopes a,b] [-C <dir>] [--trust]
       clat mcp logout <name> [-C <dir>] [--trust]
       clat mcp enable|disable <name> [--scope user|project]
       clat mcp import --from <client> [--scope user|project] [--file <path>] [--dry-run] [--force] [--json]

status (default)  Mount the trusted project's servers and show configured, connecting and
                  connected counts, transport, negotiated version, tool count, GET stream of
                  legacy HTTP servers (one still opening is waited for up to ${GET_STREAM_SETTLE_MS / 1000} s)
                  and failures (with the redacted stderr tail). Exits 1 when a configured
                  server failed.
list, get         Show mcp.json entries with their tool filters, OAuth client and stored
                  login (issuer, scope, expiry; env, header and client secret values and
                  tokens are never printed; nothing is started or contacted):
                  ~/.clat/mcp.json's, then those of the project's own .clat/mcp.json once
                  the project is trusted (or with --trust), as the mount merges them.
add, remove       Edit mcp.json atomically; other entries, unknown keys, the file's indentation
                  and line ends are kept, and a linked mcp.json is written through its link. A
                  URL (after the name, or as --url <url>) is a server that speaks Streamable HTTP,
                  and HTTP+SSE (2024-11-05) when it refuses that; --transport sse skips
                  straight to HTTP+SSE ("type": "sse"). Other clients' forms work as typed:
                  -t/--transport stdio|http|sse, -e (--env), -H (--header), -s (--scope), and
                  Codex's --bearer-token-env-var NAME, which writes the header
                  "Authorization: Bearer \${NAME}" (the token is read at each start).
                  --client-id names an OAuth client registered by hand at the server's
                  authorization server (for one that offers no registration); --client-secret
                  takes its secret from MCP_CLIENT_SECRET or asks for it without echo;
                  --callback-port is the port of its registered redirect URI
                  http://localhost:<port>/callback ("oauth": {"clientId", "callbackPort"}).
                  --no-roots ("roots": false) does not offer the project root as an MCP
                  root: server-filesystem then keeps the directories its arguments name.
                  --include-tools and --exclude-tools (names, * wildcards; comma-separated
                  or repeated) set "includeTools"/"excludeTools": only those tools, or all
                  but those, are registered.
                  An npx server (npx -y <package>) has its package installed into npx's
                  cache right after the add (add-json, import too), on a terminal (Ctrl-C
                  skips it), so its first start does not download inside the 10 s handshake;
                  without a terminal a note gives the npm command that does it.
                  Removing an HTTP server also logs out of it (see logout) unless another
                  entry connects to the same URL. --scope user (the default) edits
                  ~/.clat/mcp.json, whose servers start in every trusted project; --scope
                  project edits the project's own .clat/mcp.json (the project around the
                  current directory, or -C <dir>'s), often committed with it: paths inside
                  the project are written from \${projectRoot}, and a key typed as a value
                  is noted (write '\${NAME}' to take it from the environment).
add-json          Add an entry pasted as JSON, as a README or another client shows it: one
                  entry, or {"mcpServers": {...}} (also VS Code's "servers") whose one server,
                  or the one <name> names, is added; other clients' fields map as import
                  maps them, and what has no CLAT equivalent is said.
login             OAuth login to an HTTP server: prints the authorization URL, opens it with
                  $BROWSER (else the platform opener) and waits for the redirect; the token is
                  kept in an owner-only file under the CLAT home, never in mcp.json. A server
                  of a project's own .clat/mcp.json is found in the current directory's
                  project, or -C <dir>'s, once it is trusted (or with --trust).
                  --scopes (comma-separated) asks for exactly those OAuth scopes instead of
                  the ones the server names; scopes a later call is refused for are added
                  at the next login.
logout            Revoke the stored OAuth tokens at the authorization server (when it offers
                  RFC 7009 revocation), then delete them and the registered client.
enable, disable   Keep an entry but stop starting it ("disabled": true), or start it again
                  (--scope as for add). Entries may also set "includeTools"/"excludeTools"
                  (names, * wildcards). A trusted project's own .clat/mcp.json is merged
                  under ~/.clat/mcp.json: the user's entry wins a shared name.
import            Copy the servers of another client (claude-desktop, claude-code, cursor,
                  vscode, gemini, codex) from its documented config files into mcp.json in one
                  atomic write; reports fields that could not be mapped; never replaces an
                  existing name without --force; --dry-run only reports. --scope user (the
                  default) takes the client's user servers into ~/.clat/mcp.json; --scope
                  project takes the project's own (its .mcp.json, per-project entries) into
                  <project>/.clat/mcp.json, so they never start in other projects.

Options:
${PROJECT_USAGE}
      --json           Machine-readable output
`;

async function status(argv: string[], io: CommandIO): Promise<number> {
  const { values, positionals } = parseFlags('mcp', argv, { ...PROJECT_OPTIONS, ...JSON_OPTION });
  if (positionals.length > 0) {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      `clat mcp status takes no arguments, not ${JSON.stringify(positionals[0])}; "clat mcp get <name>" shows one server's entry`,
    );
  }
  return withProject(
    io,
    { project: values.project, trust: values.trust, promptForTrust: true, modelOptional: true },
    async (project) => {
      await waitForSurface(io, project);
      await waitForGetStreams(project.session.mount);
      const summary = project.session.mount.summary();
      if (values.json === true)
        io.stdout.write(
          jsonOutput(mcpStatusJson(summary, project.configIssues, project.sourceNotes), 'clat mcp'),
        );
      else
        io.stdout.write(
          formatMcpStatus(summary, {
            configIssues: project.configIssues,
            skippedEntries: project.skippedEntries,
            notes: project.sourceNotes,
          }),
        );
      // Scripts can tell a healthy surface from a broken one without parsing the output: a
      // failed server and a skipped entry (config issue) are both broken; needing login is not.
      return summary.failed > 0 || project.configIssues.length > 0 ? 1 : 0;
    },
  );
}

async function remove(argv: string[], io: CommandIO): Promise<number> {
  const { positionals, values } = parseFlags('mcp remove', argv, SCOPE_OPTIONS);
  const [name] = positionals;
  if (name === undefined || positionals.length > 1) {
    throw new CliError(CliErrorCode.CLI_USAGE, 'clat mcp remove: expected exactly one <name>');
  }
  const target = await editTarget('remove', values, io);
  const removed = await removeServerEntry(target.file, name).catch(async (error: unknown) => {
    throw await notFoundHint(error, target, 'remove', name, io);
  });
  // The entry as it was, for its stored login (an invalid entry never had one).
  const parsed = parseServerEntry(target.file, name, removed, 'user');
  const entry = 'server' in parsed ? parsed.server : undefined;
  const login =
    entry?.transport === 'http'
      ? await (await import('./mcp-login.js')).forgetRemovedLogin(entry, io, target.root)
      : undefined;
  io.stdout.write(
    `Removed server ${JSON.stringify(name)} from ${target.file}${login === undefined ? '' : `; ${login.done}`}\n`,
  );
  if (login?.warning !== undefined) io.stderr.write(`warning: ${login.warning}\n`);
  return 0;
}

async function toggle(disabled: boolean, argv: string[], io: CommandIO): Promise<number> {
  const verb = disabled ? 'disable' : 'enable';
  const { positionals, values } = parseFlags(`mcp ${verb}`, argv, SCOPE_OPTIONS);
  const [name] = positionals;
  if (name === undefined || positionals.length > 1) {
    throw new CliError(CliErrorCode.CLI_USAGE, `clat mcp ${verb}: expected exactly one <name>`);
  }
  const target = await editTarget(verb, values, io);
  const changed = await setServerDisabled(target.file, name, disabled).catch(
    async (error: unknown) => {
      throw await notFoundHint(error, target, verb, name, io);
    },
  );
  io.stdout.write(
    changed
      ? `${disabled ? 'Disabled' : 'Enabled'} server ${JSON.stringify(name)} in ${target.file}; restart CLAT for it to take effect\n`
      : `Server ${JSON.stringify(name)} was already ${disabled ? 'disabled' : 'enabled'}\n`,
  );
  return 0;
}

/**
 * "no server named x" in the file one scope edits, for an entry of the other scope's file (the
 * user's, or the current project's own `.clat/mcp.json`), names that file and the command that
 * edits it; else the closest name of both files, when one is close.
 */
async function notFoundHint(
  error: unknown,
  target: EditTarget,
  sub: string,
  name: string,
  io: CommandIO,
): Promise<unknown> {
  if (!(error instanceof CliError) || error.code !== CliErrorCode.CLI_SERVER_NOT_FOUND)
    return error;
  const { home } = target;
  const projectFile =
    target.scope === 'project'
      ? target.file
      : await projectRootOf('.', io.cwd, home).then(projectMcpFile, () => undefined);
  const names = async (file: string | undefined) =>
    file === undefined
      ? new Set<string>()
      : existingServerNames(file).catch(() => new Set<string>());
  // Each file read once: for the other scope's entry, then for the closest name.
  const [userNames, projectNames] = await Promise.all([names(home.mcpFile), names(projectFile)]);
  const other = target.scope === 'user' ? projectFile : home.mcpFile;
  const otherNames = target.scope === 'user' ? projectNames : userNames;
  if (other !== undefined && otherNames.has(name)) {
    const command =
      target.scope === 'user'
        ? `clat mcp ${sub} --scope project ${shellWord(name)}`
        : `clat mcp ${sub} ${shellWord(name)}`;
    const whose = target.scope === 'user' ? ", the project's own mcp.json" : '';
    return new CliError(
      CliErrorCode.CLI_SERVER_NOT_FOUND,
      `${error.message}; ${JSON.stringify(name)} is in ${other}${whose}: run "${command}"`,
    );
  }
  const plugin = Object.hasOwn(PLUGIN_COMMAND, sub) ? PLUGIN_COMMAND[sub] : undefined;
  if (plugin !== undefined && (await isInstalledPlugin(home.dir, name))) {
    return pluginNamed(error, name, plugin);
  }
  const known = [...userNames, ...projectNames];
  const meant = didYouMean(name, known);
  return meant === '' ? error : new CliError(error.code, `${error.message}${meant}`);
}

export const mcpCommand: Command = {
  name: 'mcp',
  summary: 'Show MCP server status; add, remove, list or get mcp.json entries',
  usage: USAGE,
  run: (argv, io) => edit(argv[0], argv.slice(1), io),
};

/**
 * The command that manages an installed plugin `clat mcp <get|remove|enable|disable>` was
 * given: its id shows in `clat mcp` beside the mcp.json servers.
 */
const PLUGIN_COMMAND: Record<string, (id: string) => string> = {
  get: () => 'clat plugin list',
  remove: (id) => `clat plugin uninstall ${shellWord(id)}`,
  enable: (id) => `clat plugin enable ${shellWord(id)}`,
  disable: (id) => `clat plugin disable ${shellWord(id)}`,
};

function pluginNamed(error: CliError, name: string, command: (id: string) => string): CliError {
  return new CliError(
    CliErrorCode.CLI_SERVER_NOT_FOUND,
    `${error.message}; ${JSON.stringify(name)} is an installed plugin, not an mcp.json entry: run "${command(name)}"`,
  );
}

/** `clat mcp get <name>`: "no server named x" for an installed plugin's id names its command. */
async function get(name: string, flags: string[], io: CommandIO): Promise<number> {
  try {
    return await list(flags, io, name);
  } catch (error) {
    if (!(error instanceof CliError) || error.code !== CliErrorCode.CLI_SERVER_NOT_FOUND) {
      throw error;
    }
    const home = resolveClatHome(io.env, io.cwd);
    if (!(await isInstalledPlugin(home.dir, name))) throw error;
    throw pluginNamed(error, name, PLUGIN_COMMAND.get as (id: string) => string);
  }
}

/** The subcommands `edit` knows, for "did you mean". */
const MCP_SUBCOMMANDS = [
  'list',
  'get',
  'add',
  'add-json',
  'remove',
  'status',
  'login',
  'logout',
  'enable',
  'disable',
  'import',
];

async function edit(sub: string | undefined, rest: string[], io: CommandIO): Promise<number> {
  switch (sub) {
    case 'list':
      return list(rest, io);
    case 'get': {
      const [name, ...flags] = rest;
      if (name === undefined)
        throw new CliError(CliErrorCode.CLI_USAGE, 'clat mcp get: missing <name>');
      return get(name, flags, io);
    }
    case 'add':
      return add(rest, io);
    case 'add-json':
      return (await import('./mcp-add-json.js')).addJson(rest, io);
    case 'remove':
    case 'rm':
      return remove(rest, io);
    case 'status':
      return status(rest, io);
    case 'login':
      return (await import('./mcp-login.js')).login(rest, io);
    case 'logout':
      return (await import('./mcp-login.js')).logout(rest, io);
    case 'enable':
    case 'disable':
      return toggle(sub === 'disable', rest, io);
    case 'import': {
      const { importServers } = await import('./mcp-import.js');
      return importServers(rest, io);
    }
    default:
      if (sub !== undefined && !sub.startsWith('-')) {
        const instead = foreignCommand('clat mcp', sub);
        throw new CliError(
          CliErrorCode.CLI_USAGE,
          instead === undefined
            ? `clat mcp: unknown subcommand ${JSON.stringify(sub)}${didYouMean(sub, MCP_SUBCOMMANDS)}; see "clat mcp --help"`
            : `clat mcp ${sub}: ${instead}`,
        );
      }
      return status(sub === undefined ? rest : [sub, ...rest], io);
  }
}
