/**
 * MCP server configuration (`~/.clat/mcp.json`, GLM pack entries, installed packages), validated
 * per entry so one bad entry never stops the others from mounting.
 * @module
 */
import {
  type ConfigIssue,
  describeJsonSyntaxError,
  formatZodIssues,
  lazyValue,
} from '@clat/kernel';
import * as z from 'zod';
import { hasVariableReference, headerProblem, httpUrlProblem } from './http-url.js';
import { plainStdioEntry } from './plain-stdio-entry.js';

/** Tool name patterns: exact names, `*` matches any run of characters. */
const toolPatterns = () => z.array(z.string().trim().min(1, 'must not be empty')).max(512);

/**
 * Per-entry controls shared by every transport. Schemas here are built on first use
 * (lazyValue): the CLI loads this module for every command.
 */
const entryControls = () => ({
  /** A disabled entry is kept in the file but never started. */
  disabled: z.boolean().optional(),
  /** Only these tools (server-side names) are registered. */
  includeTools: toolPatterns().optional(),
  /** These tools (server-side names) are never registered; wins over includeTools. */
  excludeTools: toolPatterns().optional(),
  /**
   * `false`: the project root is not offered as an MCP root, so a server that narrows itself to
   * its roots (server-filesystem) keeps the directories its own arguments name.
   */
  roots: z.boolean().optional(),
});

/** True when `tool` (a server-side name) passes an entry's include/exclude patterns. */
export function toolAllowedByEntry(
  entry: {
    includeTools?: readonly string[] | undefined;
    excludeTools?: readonly string[] | undefined;
  },
  tool: string,
): boolean {
  const matches = (pattern: string): boolean => {
    if (!pattern.includes('*')) return pattern === tool;
    const parts = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
    return new RegExp(`^${parts.join('.*')}$`).test(tool);
  };
  if (entry.excludeTools?.some(matches) === true) return false;
  return entry.includeTools === undefined || entry.includeTools.some(matches);
}

export const StdioServerConfigSchema = lazyValue(() =>
  z
    .object({
      type: z.literal('stdio').optional(),
      command: z.string().trim().min(1, 'must be a non-empty command'),
      args: z.array(z.string()).optional(),
      env: z.record(z.string(), z.string()).optional(),
      cwd: z.string().min(1, 'must not be empty').optional(),
      ...entryControls(),
    })
    .strict(),
);

/**
 * One OAuth scope (RFC 6749 §3.3 scope-token: printable ASCII but space, `"` and `\`): what
 * `oauth.scopes` holds and what a login may ask for.
 */
export const OAUTH_SCOPE_TOKEN = /^[!#-[\]-~]+$/;

/** OAuth client settings of a protected HTTP server; tokens never live here. */
export const OAuthConfigSchema = lazyValue(() =>
  z
    .object({
      clientId: z.string().trim().min(1, 'must be a non-empty client id').optional(),
      clientSecret: z.string().min(1, 'must be a non-empty secret').optional(),
      clientMetadataUrl: z
        .string()
        .url('must be an absolute URL')
        .refine((url) => /^https:\/\/[^/]+\/./i.test(url), 'must be an https URL with a path')
        .optional(),
      scopes: z.array(z.string().regex(OAUTH_SCOPE_TOKEN, 'must be one scope token')).optional(),
      grant: z.enum(['authorization_code', 'client_credentials']).optional(),
      // The port of a registered client's redirect URI, `http://localhost:<port>/callback`, as
      // Claude Code's `oauth.callbackPort` (authorization servers that match it exactly).
      callbackPort: z
        .number()
        .int('must be a whole number')
        .min(1, 'must be a port, 1 to 65535')
        .max(65535, 'must be a port, 1 to 65535')
        .optional(),
    })
    .strict()
    .refine((oauth) => oauth.grant !== 'client_credentials' || oauth.clientId !== undefined, {
      message: 'grant "client_credentials" needs a clientId',
      path: ['clientId'],
    })
    .refine((oauth) => oauth.clientSecret === undefined || oauth.clientId !== undefined, {
      message: 'a clientSecret needs its clientId',
      path: ['clientSecret'],
    }),
);

export type OAuthConfig = z.infer<typeof OAuthConfigSchema>;

export const HttpServerConfigSchema = lazyValue(() =>
  z
    .object({
      // `sse`: the HTTP+SSE transport of 2024-11-05 (GET stream, POSTs to its endpoint). Without
      // it, a server that refuses Streamable HTTP with 400/404/405 is tried over HTTP+SSE too.
      type: z.enum(['http', 'streamable-http', 'streamableHttp', 'sse']).optional(),
      // A URL with `${VAR}` references is checked once expanded (config-variables.ts): before
      // that, "${DOCS_URL}" or "http://127.0.0.1:${PORT}/mcp" is no URL at all.
      url: z.string().superRefine((url, context) => {
        if (hasVariableReference(url)) return;
        const problem = httpUrlProblem(url);
        if (problem === undefined) return;
        context.addIssue({
          code: 'custom',
          message:
            problem === 'not http or https' ? 'must use http or https' : 'must be an absolute URL',
        });
      }),
      headers: z
        .record(z.string(), z.string())
        .superRefine((headers, context) => {
          for (const [name, value] of Object.entries(headers)) {
            // A value with references is checked once expanded (by the transport).
            const problem = headerProblem(name, hasVariableReference(value) ? '' : value);
            if (problem !== undefined)
              context.addIssue({ code: 'custom', path: [name], message: problem });
          }
        })
        .optional(),
      oauth: OAuthConfigSchema.optional(),
      ...entryControls(),
    })
    .strict(),
);

export type StdioServerConfig = z.infer<typeof StdioServerConfigSchema>;
export type HttpServerConfig = z.infer<typeof HttpServerConfigSchema>;

/**
 * Where an entry came from, so /mcp and errors can name it: `user` and `project` are mcp.json
 * files the person edits (`~/.clat/mcp.json`, a project's `.clat/mcp.json`).
 */
export type ServerOrigin = 'user' | 'project' | 'package' | 'glm-pack' | 'demo' | (string & {});

/** True when the entry lives in an mcp.json the person edits (so its fields are theirs to set). */
export function editableOrigin(origin: ServerOrigin): boolean {
  return origin === 'user' || origin === 'project';
}

/**
 * What a host sets on an entry beyond mcp.json (no file can set it). A type, not an interface:
 * entries are also viewed as plain records (the approval digest).
 */
export type HostEntryPolicy = {
  /**
   * The entry's tools are not registered, and this says why in its status: an installed package
   * whose manifest does not declare capability `tools`, so no consent covered them.
   */
  withholdTools?: string;
};

export type McpServerConfig =
  | ({ transport: 'stdio'; name: string; origin: ServerOrigin } & StdioServerConfig &
      HostEntryPolicy)
  | ({ transport: 'http'; name: string; origin: ServerOrigin } & HttpServerConfig &
      HostEntryPolicy);

export interface ParsedMcpConfig {
  servers: McpServerConfig[];
  issues: ConfigIssue[];
}

/** Parses one named entry; `origin` tags where it came from. */
export function parseServerEntry(
  file: string,
  name: string,
  raw: unknown,
  origin: ServerOrigin,
): { server: McpServerConfig } | { issues: ConfigIssue[] } {
  const issue = (path: string, message: string) => ({ issues: [{ file, path, message }] });
  if (name.trim() === '') return issue(JSON.stringify(name), 'server name must not be empty');
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return issue(name, 'entry must be an object with either "command" (stdio) or "url" (HTTP)');
  }
  const entry = raw as Record<string, unknown>;
  const hasCommand = 'command' in entry;
  const hasUrl = 'url' in entry;
  if (hasCommand && hasUrl) {
    return issue(name, 'entry has both "command" and "url"; choose exactly one transport');
  }
  if (!hasCommand && !hasUrl) {
    // The fields it has instead (`"comand"`, Gemini CLI's `"httpUrl"`), for the host to name.
    const known = entryFields();
    const unknownKeys = Object.keys(entry).filter((key) => !known.includes(key));
    const missing = {
      file,
      path: name,
      message: 'entry needs either "command" (stdio) or "url" (Streamable HTTP)',
    };
    if (unknownKeys.length === 0) return { issues: [missing] };
    return { issues: [{ ...missing, unknownKeys, knownKeys: known }] };
  }
  if (hasCommand) {
    // Most entries are plain: answered without building the schema (same result, see the module).
    const plain = plainStdioEntry(entry);
    if (plain !== undefined) return { server: { transport: 'stdio', name, origin, ...plain } };
    const parsed = StdioServerConfigSchema.safeParse(entry);
    if (!parsed.success) return { issues: withKnownKeys(name, parsed.error, file) };
    return { server: { transport: 'stdio', name, origin, ...parsed.data } };
  }
  const parsed = HttpServerConfigSchema.safeParse(entry);
  if (!parsed.success) return { issues: withKnownKeys(name, parsed.error, file) };
  return { server: { transport: 'http', name, origin, ...parsed.data } };
}

/** Every field an mcp.json entry may have, of either transport. */
function entryFields(): string[] {
  return [
    ...new Set([
      ...Object.keys(StdioServerConfigSchema.shape),
      ...Object.keys(HttpServerConfigSchema.shape),
    ]),
  ];
}

/**
 * The entry's issues, each unknown-field issue with the fields known where it is: the entry's
 * own (of either transport: `"url"` in a stdio entry is one of two transports given, not a typo)
 * or its `oauth` block's.
 */
function withKnownKeys(name: string, error: z.ZodError, file: string): ConfigIssue[] {
  return formatZodIssues(file, name, error).map((issue) => {
    if (issue.unknownKeys === undefined) return issue;
    if (issue.path === name) return { ...issue, knownKeys: entryFields() };
    if (issue.path === `${name}.oauth`) {
      return { ...issue, knownKeys: Object.keys(OAuthConfigSchema.shape) };
    }
    return issue;
  });
}

/**
 * Parses mcp.json text. Accepts a bare `{name: entry}` map or the common `{"mcpServers": {…}}`
 * wrapper. A JSON syntax error or a non-object root is one issue and no servers; a bad entry is an
 * issue for that entry only.
 */
export function parseMcpConfig(
  file: string,
  text: string,
  origin: ServerOrigin = 'user',
): ParsedMcpConfig {
  let root: unknown;
  // A byte order mark (Windows Notepad writes one) may be ignored by a JSON parser (RFC 8259,
  // 8.1); JSON.parse reports it as an unexpected character at line 1, column 1.
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    root = JSON.parse(json);
  } catch {
    return {
      servers: [],
      issues: [
        { file, path: '(root)', message: `not valid JSON: ${describeJsonSyntaxError(json)}` },
      ],
    };
  }
  if (typeof root !== 'object' || root === null || Array.isArray(root)) {
    return {
      servers: [],
      issues: [{ file, path: '(root)', message: 'must be a JSON object of servers' }],
    };
  }
  let map = root as Record<string, unknown>;
  if ('mcpServers' in map) {
    const inner = map.mcpServers;
    if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) {
      return {
        servers: [],
        issues: [{ file, path: 'mcpServers', message: 'must be an object of servers' }],
      };
    }
    map = inner as Record<string, unknown>;
  }
  const servers: McpServerConfig[] = [];
  const issues: ConfigIssue[] = [];
  for (const [name, raw] of Object.entries(map)) {
    const result = parseServerEntry(file, name, raw, origin);
    if ('server' in result) servers.push(result.server);
    else issues.push(...result.issues);
  }
  return { servers, issues };
}

/** A relative path word, or an option's `=` value that is one. */
const RELATIVE_WORD = /^(-{1,2}[A-Za-z0-9][\w.-]*=)?(\.\.?(?:\/.*)?)$/s;

/**
 * The relative path in a command-line word (`.`, `./server.js`, `../bin/x`, or an option's value,
 * `--db=./data.sqlite`) and the option before it (`--db=`, else `''`); undefined for any other
 * word. The one reading of "relative path" for the hosts that rewrite such words (`clat mcp add`)
 * and those that warn about them ({@link relativePathNote}).
 */
export function relativePathWord(word: string): { option: string; path: string } | undefined {
  const match = RELATIVE_WORD.exec(word);
  return match === null ? undefined : { option: match[1] ?? '', path: match[2] as string };
}

/**
 * A note for an entry of a project's file whose command or arguments are relative paths: they
 * resolve against the directory its server runs in (its `cwd`, else the host's default, `runsIn`:
 * the CLAT home), not against the project that holds the file, so they name nothing there (a
 * Claude Code project `.mcp.json` copied as it is). Undefined when there is none or `cwd` is set.
 */
export function relativePathNote(
  server: McpServerConfig,
  file: string,
  runsIn: string,
): string | undefined {
  if (server.transport !== 'stdio' || server.cwd !== undefined) return undefined;
  const words: string[] = [];
  for (const word of [server.command, ...(server.args ?? [])]) {
    const relative = relativePathWord(word);
    if (relative !== undefined) words.push(relative.path);
  }
  const [first] = words;
  if (first === undefined) return undefined;
  const rooted = first === '.' ? '${projectRoot}' : `\${projectRoot}/${first.replace(/^\.\//, '')}`;
  return `${file} entry ${JSON.stringify(server.name)} names ${words.map((word) => JSON.stringify(word)).join(', ')} relative to where its server runs (${runsIn}), not to the project: write ${JSON.stringify(rooted)}, or set "cwd"`;
}

/** Redacts configured secrets for display: header values and env values are never shown. */
export function describeServerConfig(server: McpServerConfig): Record<string, unknown> {
  if (server.transport === 'http') {
    return {
      transport: 'http',
      ...(server.type === 'sse' ? { type: 'sse' } : {}),
      url: server.url,
      headers: Object.keys(server.headers ?? {}),
      ...(server.oauth === undefined ? {} : { oauth: describeOAuth(server.oauth) }),
      origin: server.origin,
      ...controlsOf(server),
    };
  }
  return {
    transport: 'stdio',
    command: server.command,
    args: server.args ?? [],
    env: Object.keys(server.env ?? {}),
    ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
    origin: server.origin,
    ...controlsOf(server),
  };
}

function controlsOf(server: McpServerConfig): Record<string, unknown> {
  return {
    ...(server.disabled === true ? { disabled: true } : {}),
    ...(server.roots === false ? { roots: false } : {}),
    ...(server.includeTools === undefined ? {} : { includeTools: server.includeTools }),
    ...(server.excludeTools === undefined ? {} : { excludeTools: server.excludeTools }),
  };
}

/** The OAuth settings without the secret (only whether one is set). */
function describeOAuth(oauth: OAuthConfig): Record<string, unknown> {
  const { clientSecret, ...shown } = oauth;
  return clientSecret === undefined ? shown : { ...shown, clientSecret: '(set)' };
}
