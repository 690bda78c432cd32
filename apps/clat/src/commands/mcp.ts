/** `clat mcp`: status of the project's MCP surface, and safe edits of ~/.clat/mcp.json. @module */

import { MCP_HEADER } from '@clat/adapter-mcp';
import { sanitizeTerminalLine, shellWord } from '@clat/kernel';
import { PROJECT_OPTIONS, PROJECT_USAGE, parseFlags } from '../cli-options.js';
import type { Command, CommandIO } from '../command.js';
import { projectMcpFile, resolveClatHome } from '../config/clat-home.js';
import {
  existingServerNames,
  loadMcpConfig,
  putServerEntry,
  removeServerEntry,
  setServerDisabled,
} from '../config/mcp-config-file.js';
import { projectRootOf } from '../config/trust-store.js';
import { CliError, CliErrorCode } from '../errors.js';
import { GET_STREAM_SETTLE_MS, waitForGetStreams } from '../project/get-streams.js';
import { waitForSurface, withProject } from '../project/with-project.js';
import { didYouMean } from '../ui/did-you-mean.js';
import { formatMcpStatus, mcpStatusJson } from '../ui/mcp-status.js';
import { list } from './mcp-list.js';
import { absolutePathWords, splitServerWords } from './server-args.js';

const USAGE = `Usage: clat mcp [status] [--json]
       clat mcp list [-C <dir>] [--trust] [--json]
       clat mcp get <name> [-C <dir>] [--trust] [--json]
       clat mcp add <name> [--env K=V]... [--cwd <dir>] [--no-roots] [--force] -- <command> [args...]
       clat mcp add <name> --url <url> [--transport http|sse] [--header "Name: value"]... [--force]
       clat mcp remove <name>
       clat mcp login <name> [-C <dir>] [--trust]
       clat mcp logout <name> [-C <dir>] [--trust]
       clat mcp enable|disable <name>
       clat mcp import --from <client> [--scope user|project] [--file <path>] [--dry-run] [--force] [--json]

status (default)  Mount the trusted project's servers and show configured, connecting and
                  connected counts, transport, negotiated version, tool count, GET stream of
                  legacy HTTP servers (one still opening is waited for up to ${GET_STREAM_SETTLE_MS / 1000} s)
                  and failures (with the redacted stderr tail). Exits 1 when a configured
                  server failed.
list, get         Show mcp.json entries (env values and header values are never printed):
                  ~/.clat/mcp.json's, then those of the project's own .clat/mcp.json once
                  the project is trusted (or with --trust), as the mount merges them.
add, remove       Edit mcp.json atomically; other entries and unknown keys are kept. A --url
                  server speaks Streamable HTTP, and HTTP+SSE (2024-11-05) when it refuses
                  that; --transport sse skips straight to HTTP+SSE ("type": "sse").
                  --no-roots ("roots": false) does not offer the project root as an MCP
                  root: server-filesystem then keeps the directories its arguments name.
                  Removing an HTTP server also logs out of it (see logout) unless another
                  entry connects to the same URL.
login             OAuth login to an HTTP server: prints the authorization URL, opens it with
                  $BROWSER (else the platform opener) and waits for the redirect; the token is
                  kept in an owner-only file under the CLAT home, never in mcp.json. A server
                  of a project's own .clat/mcp.json is found in the current directory's
                  project, or -C <dir>'s, once it is trusted (or with --trust).
logout            Revoke the stored OAuth tokens at the authorization server (when it offers
                  RFC 7009 revocation), then delete them and the registered client.
enable, disable   Keep an entry but stop starting it ("disabled": true), or start it again.
                  Entries may also set "includeTools"/"excludeTools" (names, * wildcards).
                  A trusted project's own .clat/mcp.json is merged under this file.
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

function writeJson(io: CommandIO, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

async function status(argv: string[], io: CommandIO): Promise<number> {
  const { values } = parseFlags('mcp', argv, PROJECT_OPTIONS);
  return withProject(
    io,
    { project: values.project, trust: values.trust, promptForTrust: true },
    async (project) => {
      await waitForSurface(io, project);
      await waitForGetStreams(project.session.mount);
      const summary = project.session.mount.summary();
      if (values.json === true)
        writeJson(io, mcpStatusJson(summary, project.configIssues, project.sourceNotes));
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

function pairs(
  values: string[] | undefined,
  separator: RegExp,
  flag: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [index, value] of (values ?? []).entries()) {
    const match = separator.exec(value);
    if (match === null || match.index === 0) {
      // Header and env values are often keys: the error says which one, never what it holds.
      throw new CliError(
        CliErrorCode.CLI_USAGE,
        `${flag} number ${index + 1} must look like ${flag === '--env' ? 'NAME=value' : '"Name: value"'} (its text is not shown, since it may hold a key)`,
      );
    }
    const key = value.slice(0, match.index).trim();
    if (Object.hasOwn(out, key)) {
      throw new CliError(
        CliErrorCode.CLI_USAGE,
        `${flag} ${JSON.stringify(key)} is given twice (the second would replace the first); give it once`,
      );
    }
    out[key] = value.slice(match.index + match[0].length).trim();
  }
  return out;
}

/**
 * The flag an entry field came from, for add-time errors: they are about what was typed, not
 * about mcp.json (which was not touched).
 */
function flagOf(name: string, path: string): string {
  const field = path.startsWith(`${name}.`) ? path.slice(name.length + 1) : path;
  const [head = '', ...rest] = field.split('.');
  const key = rest.join('.');
  switch (head) {
    case 'url':
      return '--url';
    case 'headers':
      return key === '' ? '--header' : `--header ${JSON.stringify(key)}`;
    case 'env':
      return key === '' ? '--env' : `--env ${key}`;
    case 'cwd':
      return '--cwd';
    case 'command':
      return 'the command after --';
    case 'args':
      return key === ''
        ? 'the arguments after --'
        : `argument ${Number(key) + 1} after the command`;
    default:
      return field;
  }
}

/**
 * Headers the HTTP client or CLAT's transport set themselves: `Host` comes from the URL (fetch
 * ignores a configured one), `Connection` is the client's, and the MCP headers carry the session
 * and protocol state the transport keeps. Refused as flags; a file that has them is left alone.
 */
const TRANSPORT_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'connection',
  ...Object.values(MCP_HEADER),
  // Streamable HTTP's session and resumption headers, owned by the HTTP transport.
  'mcp-session-id',
  'last-event-id',
]);

function checkHeaderFlags(headers: Record<string, string>): void {
  const seen = new Map<string, string>();
  for (const name of Object.keys(headers)) {
    const lower = name.toLowerCase();
    if (TRANSPORT_HEADERS.has(lower)) {
      throw new CliError(
        CliErrorCode.CLI_USAGE,
        `clat mcp add: --header ${JSON.stringify(name)} cannot be configured: ${lower === 'host' || lower === 'connection' ? 'the HTTP client sets it (Host from --url)' : "CLAT's MCP transport sets it"}`,
      );
    }
    const first = seen.get(lower);
    if (first !== undefined) {
      throw new CliError(
        CliErrorCode.CLI_USAGE,
        `clat mcp add: --header ${JSON.stringify(name)} repeats ${JSON.stringify(first)} (header names ignore case); give it once`,
      );
    }
    seen.set(lower, name);
  }
}

async function add(argv: string[], io: CommandIO): Promise<number> {
  const { own: flags, server: serverWords } = splitServerWords(argv);
  const command = serverWords ?? [];
  const options = {
    url: { type: 'string' },
    transport: { type: 'string' },
    header: { type: 'string', multiple: true },
    env: { type: 'string', multiple: true },
    cwd: { type: 'string' },
    force: { type: 'boolean' },
    'no-roots': { type: 'boolean' },
  } as const;
  let parsed: ReturnType<typeof parseFlags<typeof options>>;
  try {
    parsed = parseFlags('mcp add', flags, options);
  } catch (error) {
    // `clat mcp add mem npx -y pkg`: the server's own option was taken for clat's. Say where
    // the command goes, with the very words typed.
    const [name, first] = flags;
    if (
      serverWords !== undefined ||
      name === undefined ||
      first === undefined ||
      first.startsWith('-')
    )
      throw error;
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      `${(error as Error).message}; a server command goes after --: clat mcp add ${[name, '--', ...flags.slice(1)].map((word) => shellWord(word)).join(' ')}`,
    );
  }
  const { values, positionals } = parsed;
  const [name, ...extra] = positionals;
  if (name === undefined)
    throw new CliError(CliErrorCode.CLI_USAGE, 'clat mcp add: missing <name>');
  const [cmd, ...args] = [...extra, ...command];
  let entry: Record<string, unknown>;
  /** Relative paths made absolute, shown after "Added". */
  const resolved: string[] = [];
  const transport = values.transport;
  if (transport !== undefined && transport !== 'http' && transport !== 'sse') {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      `clat mcp add: --transport must be http or sse, not ${JSON.stringify(transport.slice(0, 40))} (a command after -- is a stdio server)`,
    );
  }
  if (transport !== undefined && values.url === undefined) {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      'clat mcp add: --transport applies only to --url servers',
    );
  }
  if (values.url !== undefined) {
    if (cmd !== undefined || values.env !== undefined || values.cwd !== undefined) {
      throw new CliError(
        CliErrorCode.CLI_USAGE,
        'clat mcp add: --url cannot be combined with a command, --env or --cwd; choose exactly one transport',
      );
    }
    const headers = pairs(values.header, /:/, '--header');
    checkHeaderFlags(headers);
    // The transport refuses it at every start; say so now, before it is written.
    if (URL.canParse(values.url)) {
      const url = new URL(values.url);
      if (url.username !== '' || url.password !== '') {
        throw new CliError(
          CliErrorCode.CLI_USAGE,
          'clat mcp add: --url must not embed credentials (user:password@); put them in a header instead, e.g. --header "Authorization: Bearer <token>"',
        );
      }
    }
    entry = {
      ...(transport === 'sse' ? { type: 'sse' } : {}),
      url: values.url,
      ...(values.header === undefined ? {} : { headers }),
    };
  } else {
    if (cmd === undefined) {
      throw new CliError(
        CliErrorCode.CLI_USAGE,
        'clat mcp add: give either --url <url> or -- <command> [args...]',
      );
    }
    if (values.header !== undefined) {
      throw new CliError(
        CliErrorCode.CLI_USAGE,
        'clat mcp add: --header applies only to --url servers',
      );
    }
    // Servers run in the CLAT home, not where `clat mcp add` was typed: a path written relative
    // to here (`./server.js`, `.`, `../data`) is made absolute now, so it keeps naming the file
    // the person meant instead of one in the CLAT home.
    const absolute = absolutePathWords([cmd, ...args], io.cwd);
    resolved.push(...absolute.resolved);
    const [command, ...fixedArgs] = absolute.words;
    entry = {
      command: command ?? cmd,
      ...(fixedArgs.length === 0 ? {} : { args: fixedArgs }),
      ...(values.env === undefined ? {} : { env: pairs(values.env, /=/, '--env') }),
      ...(values.cwd === undefined ? {} : { cwd: values.cwd }),
    };
  }
  if (values['no-roots'] === true) entry.roots = false;
  const home = resolveClatHome(io.env, io.cwd);
  const server = await putServerEntry(home.mcpFile, name, entry, {
    replace: values.force === true,
    invalid: (issues) =>
      new CliError(
        CliErrorCode.CLI_USAGE,
        `clat mcp add: ${issues.map((issue) => `${flagOf(name, issue.path)}: ${issue.message}`).join('; ')}; nothing was written to ${home.mcpFile}`,
      ),
  });
  const label =
    server.transport === 'http' && server.type === 'sse' ? 'HTTP+SSE' : server.transport;
  io.stdout.write(
    `Added ${label} server ${JSON.stringify(name)} to ${home.mcpFile}; restart CLAT to mount it\n`,
  );
  if (resolved.length > 0) {
    io.stdout.write(
      `Relative paths were made absolute, since servers run in ${home.dir}: ${resolved.map((pair) => sanitizeTerminalLine(pair)).join(', ')}\n`,
    );
  }
  if (await isInstalledPlugin(home.dir, name)) {
    // mcp.json entries come first, so the package would stop starting without a word here.
    io.stdout.write(
      `It takes the place of the installed plugin ${JSON.stringify(name)}, which CLAT no longer starts while this entry exists; "clat mcp remove ${shellWord(name)}" brings the plugin back\n`,
    );
  }
  return 0;
}

/** Whether an installed plugin (enabled or not) has id `name`; an unreadable store counts as no. */
async function isInstalledPlugin(clatHome: string, name: string): Promise<boolean> {
  const { PluginStore } = await import('@clat/packaging');
  const registry = await new PluginStore({ clatHome }).readRegistry().catch(() => undefined);
  return registry !== undefined && Object.hasOwn(registry.packages, name);
}

async function remove(argv: string[], io: CommandIO): Promise<number> {
  const { positionals } = parseFlags('mcp remove', argv, {});
  const [name] = positionals;
  if (name === undefined || positionals.length > 1) {
    throw new CliError(CliErrorCode.CLI_USAGE, 'clat mcp remove: expected exactly one <name>');
  }
  const home = resolveClatHome(io.env, io.cwd);
  // The entry as it was, for its stored login (an invalid entry never had one).
  const entry = (await loadMcpConfig(home.mcpFile)).servers.find((server) => server.name === name);
  await removeServerEntry(home.mcpFile, name);
  const login =
    entry?.transport === 'http'
      ? await (await import('./mcp-login.js')).forgetRemovedLogin(entry, io)
      : undefined;
  io.stdout.write(
    `Removed server ${JSON.stringify(name)} from ${home.mcpFile}${login === undefined ? '' : `; ${login.done}`}\n`,
  );
  if (login?.warning !== undefined) io.stderr.write(`warning: ${login.warning}\n`);
  return 0;
}

async function toggle(disabled: boolean, argv: string[], io: CommandIO): Promise<number> {
  const verb = disabled ? 'disable' : 'enable';
  const { positionals } = parseFlags(`mcp ${verb}`, argv, {});
  const [name] = positionals;
  if (name === undefined || positionals.length > 1) {
    throw new CliError(CliErrorCode.CLI_USAGE, `clat mcp ${verb}: expected exactly one <name>`);
  }
  const home = resolveClatHome(io.env, io.cwd);
  const changed = await setServerDisabled(home.mcpFile, name, disabled);
  io.stdout.write(
    changed
      ? `${disabled ? 'Disabled' : 'Enabled'} server ${JSON.stringify(name)} in ${home.mcpFile}; restart CLAT for it to take effect\n`
      : `Server ${JSON.stringify(name)} was already ${disabled ? 'disabled' : 'enabled'}\n`,
  );
  return 0;
}

export const mcpCommand: Command = {
  name: 'mcp',
  summary: 'Show MCP server status; add, remove, list or get mcp.json entries',
  usage: USAGE,
  async run(argv, io) {
    const [sub, ...rest] = argv;
    const plugin =
      sub !== undefined && Object.hasOwn(PLUGIN_COMMAND, sub) ? PLUGIN_COMMAND[sub] : undefined;
    if (plugin === undefined) return edit(sub, rest, io);
    try {
      return await edit(sub, rest, io);
    } catch (error) {
      throw await namePluginCommand(error, plugin, rest, io);
    }
  },
};

/** The command that manages an installed plugin `clat mcp <get|remove|enable|disable>` was given. */
const PLUGIN_COMMAND: Record<string, (id: string) => string> = {
  get: () => 'clat plugin list',
  remove: (id) => `clat plugin uninstall ${shellWord(id)}`,
  rm: (id) => `clat plugin uninstall ${shellWord(id)}`,
  enable: (id) => `clat plugin enable ${shellWord(id)}`,
  disable: (id) => `clat plugin disable ${shellWord(id)}`,
};

/**
 * "no server named x" for the id of an installed plugin (it shows in `clat mcp` beside the
 * mcp.json servers) names the `clat plugin` command that manages it.
 */
async function namePluginCommand(
  error: unknown,
  command: (id: string) => string,
  rest: string[],
  io: CommandIO,
): Promise<unknown> {
  if (!(error instanceof CliError) || error.code !== CliErrorCode.CLI_SERVER_NOT_FOUND)
    return error;
  const name = rest.find((word) => !word.startsWith('-'));
  if (name === undefined) return error;
  const home = resolveClatHome(io.env, io.cwd);
  if (!(await isInstalledPlugin(home.dir, name)))
    return command === PLUGIN_COMMAND.get ? error : nameProjectFile(error, name, io);
  return new CliError(
    CliErrorCode.CLI_SERVER_NOT_FOUND,
    `${error.message}; ${JSON.stringify(name)} is an installed plugin, not an mcp.json entry: run "${command(name)}"`,
  );
}

/**
 * "no server named x" in `~/.clat/mcp.json` for an entry of the current project's own
 * `.clat/mcp.json` (shown by `clat mcp` and `list` once trusted) says which file holds it: these
 * commands edit only the user's file, and a project's file is the project's to change.
 */
async function nameProjectFile(error: CliError, name: string, io: CommandIO): Promise<CliError> {
  const home = resolveClatHome(io.env, io.cwd);
  const root = await projectRootOf('.', io.cwd, home).catch(() => undefined);
  if (root === undefined) return error;
  const file = projectMcpFile(root);
  const names = await existingServerNames(file).catch(() => undefined);
  if (names === undefined || !names.has(name)) {
    // Neither a plugin nor a project entry: perhaps a typo of a user entry.
    const user = await existingServerNames(home.mcpFile).catch(() => new Set<string>());
    const meant = didYouMean(name, [...user, ...(names ?? [])]);
    return meant === '' ? error : new CliError(error.code, `${error.message}${meant}`);
  }
  return new CliError(
    CliErrorCode.CLI_SERVER_NOT_FOUND,
    `${error.message}; ${JSON.stringify(name)} is in ${file}, the project's own mcp.json, which clat mcp remove, enable and disable do not edit: change it there`,
  );
}

/** The subcommands `edit` knows, for "did you mean". */
const MCP_SUBCOMMANDS = [
  'list',
  'get',
  'add',
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
      return list(flags, io, name);
    }
    case 'add':
      return add(rest, io);
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
        throw new CliError(
          CliErrorCode.CLI_USAGE,
          `clat mcp: unknown subcommand ${JSON.stringify(sub)}${didYouMean(sub, MCP_SUBCOMMANDS)}; see "clat mcp --help"`,
        );
      }
      return status(sub === undefined ? rest : [sub, ...rest], io);
  }
}
