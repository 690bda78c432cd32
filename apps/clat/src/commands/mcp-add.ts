/**
 * `clat mcp add`: one entry into the user's `mcp.json` or, with `--scope project`, the project's
 * own `.clat/mcp.json`, validated before anything is written, naming the flag a bad field came
 * from.
 * @module
 */

import { sep } from 'node:path';
import { parseArgs } from 'node:util';
import {
  environmentValue,
  literalReferences,
  MCP_HEADER,
  type McpServerConfig,
} from '@clat/adapter-mcp';
import { sanitizeTerminalLine, shellWord } from '@clat/kernel';
import { parseFlags, unknownOptionOf } from '../cli-options.js';
import type { CommandIO } from '../command.js';
import { existingServerNames, putServerEntry } from '../config/mcp-config-file.js';
import { CliError, CliErrorCode } from '../errors.js';
import { type FlagPairsOptions, flagPairs, keysTypedAsValues, plainUsage } from '../flag-pairs.js';
import { shownPath } from '../ui/shown-path.js';
import { bearerHeader, OAUTH_FLAGS, type OAuthFlags, oauthFlags } from './mcp-add-auth.js';
import { installNpxServer } from './mcp-add-npx.js';
import { type EditTarget, editTarget, SCOPE_OPTIONS, targetTrusted } from './mcp-scope.js';
import {
  absolutePathWords,
  exposedArgumentNotes,
  rootsNote,
  splitServerWords,
} from './server-args.js';

const HEADER_PAIRS: FlagPairsOptions = {
  flag: '--header',
  separator: ':',
  shape: '"Name: value"',
  trim: true,
  error: plainUsage,
};
const ENV_PAIRS: FlagPairsOptions = {
  ...HEADER_PAIRS,
  flag: '--env',
  separator: '=',
  shape: 'NAME=value',
};

/**
 * The flag an entry field came from, for add-time errors: they are about what was typed, not
 * about mcp.json (which was not touched).
 */
function flagOf(name: string, path: string, urlWord = false): string {
  const field = path.startsWith(`${name}.`) ? path.slice(name.length + 1) : path;
  const [first = '', ...rest] = field.split('.');
  // A list item is `args[2]` (or `args.2`): the list's flag, the item's index as its key.
  const item = /^([^[]+)\[(\d+)\]$/.exec(first);
  const head = item === null ? first : (item[1] as string);
  const key = item === null ? rest.join('.') : (item[2] as string);
  switch (head) {
    case 'url':
      return urlWord ? 'the URL' : '--url';
    case 'headers':
      return key === '' ? '--header' : `--header ${JSON.stringify(key)}`;
    case 'env':
      return key === '' ? '--env' : `--env ${key}`;
    case 'cwd':
      return '--cwd';
    case 'oauth':
      return OAUTH_FLAGS[key] ?? `oauth.${key}`;
    case 'includeTools':
      return '--include-tools';
    case 'excludeTools':
      return '--exclude-tools';
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

/**
 * Options other clients' `mcp add` take that CLAT has no use for (Gemini CLI's), with why: a
 * line pasted from their READMEs is answered with what to do, not only "unknown option".
 */
const FOREIGN_ADD_FLAGS: Readonly<Record<string, string>> = {
  '--timeout':
    "--timeout is Gemini CLI's option; CLAT has no per-server timeout (it applies its own limits: 10 s for the handshake, 120 s per tool call); leave out --timeout and its value",
  '--trust':
    "--trust is Gemini CLI's option to run a server's tools without asking; CLAT asks per its permission mode (--mode) and keeps the tools you allow for a project (clat approvals), and a project is trusted with clat trust; leave out --trust",
  '--description':
    "--description is Gemini CLI's option; mcp.json entries carry no description (clat tools shows what the server says of its tools); leave out --description and its value",
};

/** The refusal of another client's option (`--timeout 5000` and `--timeout=5000` alike). */
function foreignFlagError(error: unknown): CliError | undefined {
  const option = unknownOptionOf(error)?.split('=')[0];
  const why = option === undefined ? undefined : FOREIGN_ADD_FLAGS[option];
  return why === undefined
    ? undefined
    : new CliError(CliErrorCode.CLI_USAGE, `clat mcp add: ${why}`);
}

export async function add(argv: string[], io: CommandIO): Promise<number> {
  const { own: flags, server: serverWords } = splitServerWords(argv);
  const command = serverWords ?? [];
  // The short flags are Claude Code's and Gemini CLI's (`-t http -H "…" -e K=V -s project`).
  const options = {
    url: { type: 'string' },
    transport: { type: 'string', short: 't' },
    header: { type: 'string', multiple: true, short: 'H' },
    env: { type: 'string', multiple: true, short: 'e' },
    'bearer-token-env-var': { type: 'string' },
    // A client registered by hand at the authorization server, as Claude Code's flags name it.
    'client-id': { type: 'string' },
    'client-secret': { type: 'boolean' },
    'callback-port': { type: 'string' },
    cwd: { type: 'string' },
    force: { type: 'boolean' },
    'no-roots': { type: 'boolean' },
    'include-tools': { type: 'string', multiple: true },
    'exclude-tools': { type: 'string', multiple: true },
    ...SCOPE_OPTIONS,
  } as const;
  let parsed: ReturnType<typeof parseFlags<typeof options>>;
  try {
    parsed = parseFlags('mcp add', flags, options);
  } catch (error) {
    // `clat mcp add mem npx -y pkg` (or `--transport stdio mem npx -y pkg`): the server's own
    // option was taken for clat's. Say where the command goes, with the very words typed: the
    // options before the name kept, `--` between the name and the command.
    if (serverWords !== undefined) throw foreignFlagError(error) ?? error;
    const { tokens } = parseArgs({
      args: flags,
      options,
      allowPositionals: true,
      strict: false,
      tokens: true,
    });
    const [name, command] = tokens.filter((token) => token.kind === 'positional');
    // Only for `<name> <command> …`: the command right after the name, no URL (no command), and
    // every option clat did not know after it (one before would stay wrong in the line shown).
    if (
      name === undefined ||
      command === undefined ||
      command.index !== name.index + 1 ||
      isUrlWord(command.value) ||
      tokens.some(
        (token) =>
          token.kind === 'option' &&
          !Object.hasOwn(options, token.name) &&
          token.index < command.index,
      )
    )
      throw foreignFlagError(error) ?? error;
    const retyped = [...flags.slice(0, command.index), '--', ...flags.slice(command.index)];
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      `${(error as Error).message}; a server command goes after --: clat mcp add ${retyped.map((word) => shellWord(word)).join(' ')}`,
    );
  }
  const { values, positionals } = parsed;
  const [name, ...extra] = positionals;
  if (name === undefined)
    throw new CliError(CliErrorCode.CLI_USAGE, 'clat mcp add: missing <name>');
  const transport = values.transport;
  if (transport !== undefined && !TRANSPORTS.includes(transport)) {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      `clat mcp add: --transport must be stdio, http or sse, not ${JSON.stringify(transport.slice(0, 40))}`,
    );
  }
  const url = urlOf(values.url, extra, serverWords, transport);
  if (serverWords !== undefined && extra.length > 0 && !url.word) {
    // `clat mcp add my server -- npx …`: "server" would silently start the command.
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      `clat mcp add: ${JSON.stringify(extra[0])} comes between the name and --; a name with a space goes in quotes (clat mcp add ${shellWord([name, ...extra].join(' '))} -- …), and the whole command after --`,
    );
  }
  const [cmd, ...args] = url.word ? [] : [...extra, ...command];
  const target = await editTarget('add', values, io);
  let entry: Record<string, unknown>;
  /** The --env and --header pairs, parsed once: for the entry, then for the notes. */
  let env: Record<string, string> = {};
  let headers: Record<string, string> = {};
  /** The `oauth` object of --client-id, --client-secret and --callback-port. */
  let oauth: OAuthFlags | undefined;
  /** Relative paths made absolute, shown after "Added". */
  const resolved: string[] = [];
  /** Paths with a `${` written literally (`$${`), named after "Added". */
  const literal: string[] = [];
  const bearer = values['bearer-token-env-var'];
  if (url.value !== undefined) {
    if (cmd !== undefined || values.env !== undefined || values.cwd !== undefined) {
      throw new CliError(
        CliErrorCode.CLI_USAGE,
        `clat mcp add: ${url.word ? 'a URL' : '--url'} cannot be combined with a command, --env or --cwd; choose exactly one transport`,
      );
    }
    headers = flagPairs(values.header, HEADER_PAIRS);
    checkHeaderFlags(headers);
    if (bearer !== undefined) bearerHeader(headers, bearer);
    // The transport refuses it at every start; say so now, before it is written.
    if (URL.canParse(url.value)) {
      const parsed = new URL(url.value);
      if (parsed.username !== '' || parsed.password !== '') {
        throw new CliError(
          CliErrorCode.CLI_USAGE,
          `clat mcp add: ${url.word ? 'the URL' : '--url'} must not embed credentials (user:password@); put them in a header instead, e.g. --header "Authorization: Bearer <token>"`,
        );
      }
    }
    oauth = await oauthFlags(values, name, io);
    entry = {
      ...(transport === 'sse' ? { type: 'sse' } : {}),
      url: url.value,
      ...(Object.keys(headers).length === 0 ? {} : { headers }),
      ...(oauth === undefined ? {} : { oauth }),
    };
  } else {
    for (const [flag, given] of [
      ['--header', values.header],
      ['--bearer-token-env-var', bearer],
      ['--client-id', values['client-id']],
      ['--client-secret', values['client-secret']],
      ['--callback-port', values['callback-port']],
    ] as const) {
      if (given !== undefined) {
        throw new CliError(
          CliErrorCode.CLI_USAGE,
          `clat mcp add: only servers with a URL take ${flag}`,
        );
      }
    }
    if (cmd === undefined) {
      throw new CliError(
        CliErrorCode.CLI_USAGE,
        'clat mcp add: give the server: <name> <url> (or --url <url>), or <name> -- <command> [args...]',
      );
    }
    // Servers run in the CLAT home, not where `clat mcp add` was typed: a path written relative
    // to here (`./server.js`, `.`, `../data`) is made absolute now, so it keeps naming the file
    // the person meant instead of one in the CLAT home.
    // In a project's file, arguments inside the project are written from `${projectRoot}`, so
    // the entry works wherever the project is checked out (the command cannot hold it).
    // A `${` in a path (a directory named so) is written `$${`, or the start would expand it.
    const fixedCommand = absolutePathWords([cmd], io.cwd, { literal: literalReferences });
    const root = target.root;
    const fixedArgs = absolutePathWords(args, io.cwd, {
      literal: literalReferences,
      rewrite: (path) =>
        root === undefined ? path : fromProjectRoot(literalReferences(root), path),
    });
    resolved.push(...fixedCommand.resolved, ...fixedArgs.resolved);
    literal.push(...fixedCommand.literal, ...fixedArgs.literal);
    env = flagPairs(values.env, ENV_PAIRS);
    entry = {
      command: fixedCommand.words[0] ?? cmd,
      ...(fixedArgs.words.length === 0 ? {} : { args: fixedArgs.words }),
      ...(values.env === undefined ? {} : { env }),
      ...(values.cwd === undefined ? {} : { cwd: values.cwd }),
    };
  }
  if (values['no-roots'] === true) entry.roots = false;
  // Comma-separated or repeated, as Gemini CLI's `mcp add --include-tools` takes them.
  const include = toolPatterns(values['include-tools']);
  const exclude = toolPatterns(values['exclude-tools']);
  if (include !== undefined) entry.includeTools = include;
  if (exclude !== undefined) entry.excludeTools = exclude;
  const { home, file } = target;
  let dropped: string[] = [];
  const server = await putServerEntry(file, name, entry, {
    replace: values.force === true,
    replaced: (previous) => {
      dropped = droppedSettings(previous, entry);
    },
    invalid: (issues) =>
      new CliError(
        CliErrorCode.CLI_USAGE,
        `clat mcp add: ${issues.map((issue) => `${flagOf(name, issue.path, url.word)}: ${issue.message}`).join('; ')}; nothing was written to ${file}`,
      ),
  });
  const how =
    target.root === undefined
      ? 'made absolute,'
      : `made absolute, inside the project from \${projectRoot} (${target.root} here, wherever the project is checked out),`;
  const typed = literalValues(env, headers, (kind, key) =>
    kind === 'env' ? `--env ${key}` : `--header ${JSON.stringify(key)}`,
  );
  if (oauth?.clientSecret !== undefined && !oauth.clientSecret.includes('${'))
    typed.push('--client-secret');
  await reportAdded(target, server, typed, io, [
    ...(dropped.length === 0
      ? []
      : [
          `--force replaced the whole entry: its ${dropped.join(', ')} ${dropped.length === 1 ? 'was' : 'were'} not given again and ${dropped.length === 1 ? 'is' : 'are'} gone; add ${dropped.length === 1 ? 'it' : 'them'} again if the server needs ${dropped.length === 1 ? 'it' : 'them'}`,
        ]),
    ...(await argumentNotes(args)),
    ...(values['no-roots'] === true
      ? []
      : [await rootsNote(absolutePathWords(args, io.cwd).words, `--no-roots on the add`)].filter(
          (note) => note !== undefined,
        )),
    ...(resolved.length === 0
      ? []
      : [
          `Relative paths were ${how} since servers run in ${home.dir}: ${resolved.map((pair) => sanitizeTerminalLine(pair)).join(', ')}`,
        ]),
    ...(literal.length === 0
      ? []
      : [
          `The "\${" in ${[...new Set(literal)].map((path) => sanitizeTerminalLine(shellWord(path))).join(', ')} is written "$\${" (a literal "\${"), so the server's start does not read it as a variable reference`,
        ]),
    ...(oauth === undefined || !(await targetTrusted(target))
      ? []
      : [
          `Log in with: clat mcp login ${shellWord(name)}${target.root === undefined ? '' : ` -C ${shellWord(target.root)}`}`,
        ]),
    ...(bearer === undefined || environmentValue(io.env, bearer, undefined) !== undefined
      ? []
      : [
          `${bearer} is not set here: CLAT reads the token from it in the environment it starts in, and skips the server while it is unset`,
        ]),
  ]);
  return 0;
}

/**
 * What a stdio server's arguments expose on its command line ({@link exposedArgumentNotes});
 * mcp.json's `${NAME}` is the form an installed package's arguments take, so packaging names the
 * variables (loaded only when a word holds one).
 */
async function argumentNotes(args: readonly string[]): Promise<string[]> {
  if (!args.some((word) => word.includes('${'))) return exposedArgumentNotes(args, () => []);
  const { environmentNames } = await import('@clat/packaging');
  return exposedArgumentNotes(args, environmentNames);
}

/** What `--transport` takes; `stdio` (a command, the default) as Claude Code's flag takes it. */
const TRANSPORTS: readonly string[] = ['stdio', 'http', 'sse'];

/** A word that is an http(s) URL, as the one after the name of `clat mcp add <name> <url>`. */
function isUrlWord(word: string): boolean {
  return /^https?:\/\//i.test(word);
}

/**
 * The server's URL: `--url`, or the one word after the name (`word`), as Claude Code's and
 * Gemini CLI's `mcp add --transport http <name> <url>` take it; with no `--transport`, a word
 * that is an http(s) URL is one too (a URL is no command). Undefined for a command server.
 */
function urlOf(
  flag: string | undefined,
  extra: readonly string[],
  serverWords: readonly string[] | undefined,
  transport: string | undefined,
): { value: string | undefined; word: boolean } {
  const remote = transport === 'http' || transport === 'sse';
  const [first] = extra;
  const word =
    flag === undefined &&
    serverWords === undefined &&
    extra.length === 1 &&
    first !== undefined &&
    (remote || isUrlWord(first));
  const value = word ? first : flag;
  if (value !== undefined && transport === 'stdio') {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      'clat mcp add: --transport stdio runs a command (after --), and a URL is an http server: drop --transport or give --transport http',
    );
  }
  if (remote && value === undefined) {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      `clat mcp add: --transport ${transport} takes the server's URL, one word after the name (clat mcp add <name> <url> --transport ${transport}), or --url <url>; a command is a stdio server`,
    );
  }
  return { value, word };
}

/** Tool name patterns from repeated or comma-separated flag values (undefined when none). */
function toolPatterns(values: string[] | undefined): string[] | undefined {
  if (values === undefined) return undefined;
  return values.flatMap((value) => value.split(',')).map((pattern) => pattern.trim());
}

/**
 * The env and header values written as typed that a committed project file should not hold: an
 * env value that looks like a key, any header value (all are treated as secret), unless it takes
 * its value from a `${VAR}`. `label` names each as the person gave it.
 */
export function literalValues(
  env: Record<string, string>,
  headers: Record<string, string>,
  label: (kind: 'env' | 'header', key: string) => string,
): string[] {
  const out = keysTypedAsValues(env).map((key) => label('env', key));
  for (const [key, value] of Object.entries(headers)) {
    if (!value.includes('${')) out.push(label('header', key));
  }
  return out;
}

/**
 * What of the `previous` entry a replacing `--force` add did not carry over, by name only (a
 * header's or variable's value may be a key): `header "X-Team"`, `env CONFIG_DIR`, `"cwd"`.
 */
function droppedSettings(previous: unknown, entry: Record<string, unknown>): string[] {
  if (typeof previous !== 'object' || previous === null || Array.isArray(previous)) return [];
  const old = previous as Record<string, unknown>;
  const dropped: string[] = [];
  for (const [field, label] of [
    ['headers', 'header'],
    ['env', 'env'],
  ] as const) {
    const before = old[field];
    if (typeof before !== 'object' || before === null) continue;
    // Header names are case-insensitive: `x-team` given again keeps `X-Team`.
    const given = new Set(
      Object.keys((entry[field] ?? {}) as object).map((key) =>
        field === 'headers' ? key.toLowerCase() : key,
      ),
    );
    for (const key of Object.keys(before)) {
      if (!given.has(field === 'headers' ? key.toLowerCase() : key))
        dropped.push(`${label} ${JSON.stringify(sanitizeTerminalLine(key))}`);
    }
  }
  // The fields that say how to reach the server are the ones the add gave anew.
  const REACH = new Set(['command', 'args', 'url', 'type', 'transport', 'headers', 'env', 'oauth']);
  for (const field of Object.keys(old)) {
    if (!REACH.has(field) && !Object.hasOwn(entry, field)) {
      dropped.push(JSON.stringify(sanitizeTerminalLine(field)));
    }
  }
  return dropped;
}

/**
 * What an add says after the write: what was added where, the caller's own `lines`, then in a
 * project's file keys typed as values (`literal`), a user entry that wins the name and an
 * untrusted project; in either, an installed plugin whose place the entry takes. Last, an `npx`
 * entry's package is installed into npx's cache (on a terminal; a note otherwise).
 */
export async function reportAdded(
  target: EditTarget,
  server: McpServerConfig,
  literal: readonly string[],
  io: CommandIO,
  lines: readonly string[] = [],
): Promise<void> {
  const { name } = server;
  const label =
    server.transport === 'http' && server.type === 'sse' ? 'HTTP+SSE' : server.transport;
  io.stdout.write(
    `Added ${label} server ${JSON.stringify(name)} to ${shownPath(target.file)}; restart CLAT to mount it\n`,
  );
  for (const line of lines) io.stdout.write(`${line}\n`);
  if (target.root !== undefined) await projectScopeNotes(target, name, literal, io);
  if (await isInstalledPlugin(target.home.dir, name)) {
    // mcp.json entries come first, so the package would stop starting without a word here.
    io.stdout.write(
      `It takes the place of the installed plugin ${JSON.stringify(name)}, which CLAT no longer starts while this entry exists; "clat mcp remove ${shellWord(name)}" brings the plugin back\n`,
    );
  }
  await installNpxServer(server, target, io);
}

/** Whether an installed plugin (enabled or not) has id `name`; an unreadable store counts as no. */
export async function isInstalledPlugin(clatHome: string, name: string): Promise<boolean> {
  const { PluginStore } = await import('@clat/packaging');
  const registry = await new PluginStore({ clatHome }).readRegistry().catch(() => undefined);
  return registry !== undefined && Object.hasOwn(registry.packages, name);
}

/** `path` (absolute) from `${projectRoot}` when it is the root or inside it, else as it is. */
function fromProjectRoot(root: string, path: string): string {
  if (path === root) return '${projectRoot}';
  return path.startsWith(`${root}${sep}`) ? `\${projectRoot}${path.slice(root.length)}` : path;
}

/**
 * What a project-scope add should know: a key typed into a file that is often committed, an
 * entry of the user's own `mcp.json` that wins the name, and an untrusted project.
 */
async function projectScopeNotes(
  target: EditTarget,
  name: string,
  literal: readonly string[],
  io: CommandIO,
): Promise<void> {
  if (literal.length > 0) {
    io.stdout.write(
      `Note: ${shownPath(target.file)} is the project's own file, often committed: the value${literal.length === 1 ? '' : 's'} of ${literal.join(', ')} ${literal.length === 1 ? 'is' : 'are'} written as typed; write '\${NAME}' (in single quotes, so the shell leaves it) to take a value from the environment CLAT runs in${literal.includes('--client-secret') ? " (for --client-secret: MCP_CLIENT_SECRET='${NAME}')" : ''}\n`,
    );
  }
  const user = await existingServerNames(target.home.mcpFile).catch(() => new Set<string>());
  if (user.has(name)) {
    io.stdout.write(
      `${shownPath(target.home.mcpFile)} has a server ${JSON.stringify(name)} too, which wins: CLAT starts that one while it exists\n`,
    );
  }
  if (!(await targetTrusted(target))) {
    io.stdout.write(
      `CLAT starts the project's servers once the project is trusted: ${sanitizeTerminalLine(`clat trust ${shellWord(target.root ?? '.')}`)}\n`,
    );
  }
}
