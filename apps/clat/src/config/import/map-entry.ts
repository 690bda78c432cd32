/**
 * Maps one server entry of another client onto a CLAT mcp.json entry (stdio: command, args, env,
 * cwd; Streamable HTTP: url, headers). What has no CLAT equivalent is reported, never dropped
 * silently; variable references are rewritten to CLAT's `${VAR}` / `${projectRoot}` forms.
 * @module
 */
import type { ImportClient } from './client-sources.js';

type JsonMap = Record<string, unknown>;

export interface MappedEntry {
  /** The mcp.json entry, or undefined when the server cannot be used by CLAT. */
  entry?: JsonMap;
  /** Why the server was not imported (set when `entry` is undefined). */
  skipped?: string;
  /** Fields that were not carried over, and variables the user must provide. */
  notes: string[];
}

export interface MapContext {
  client: ImportClient;
  /** Where the entry came from, in notes (default: the client's name). */
  from?: string;
  home: string;
  /** VS Code `inputs` declared in the same file. */
  inputs: ReadonlyMap<string, { password: boolean; description?: string }>;
}

function isMap(value: unknown): value is JsonMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringMap(value: unknown): Record<string, string> | undefined {
  if (!isMap(value)) return undefined;
  // Without a prototype: another client's `__proto__` variable is an own entry, not lost.
  const out: Record<string, string> = Object.create(null);
  for (const [key, item] of Object.entries(value)) {
    if (typeof item === 'string') out[key] = item;
    else if (typeof item === 'number' || typeof item === 'boolean') out[key] = String(item);
  }
  return out;
}

function stringList(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out = value.filter(
    (item): item is string => typeof item === 'string' && item.trim() !== '',
  );
  return out.length > 0 ? out : undefined;
}

/** The environment variable a VS Code input id becomes (`api-key` → `API_KEY`). */
export function inputVariable(id: string): string {
  const name = id
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toUpperCase();
  return /^[A-Za-z_]/.test(name) ? name : `INPUT_${name}`;
}

/**
 * Gemini CLI expands `$VAR` as well as `${VAR}` in every string of its settings; CLAT expands
 * only `${VAR}`, so `$VAR` would reach the server as literal text. Written `${VAR}` instead.
 */
function bareReferences(value: string, notes: Set<string>): string {
  if (!value.includes('$')) return value;
  return value.replace(/\$([A-Za-z_][A-Za-z0-9_]*)/g, (_whole, name: string) => {
    notes.add(`$${name} is written \${${name}} in CLAT (it is expanded when the project mounts)`);
    return `\${${name}}`;
  });
}

/**
 * Rewrites editor-style references: `${env:VAR}` → `${VAR}`, `${workspaceFolder}` →
 * `${projectRoot}` (args and env only), `${userHome}` → the home path, `${input:id}` → a
 * variable named after the input, which the user must export.
 */
function rewrite(
  value: string,
  where: 'args' | 'env' | 'other',
  context: MapContext,
  notes: Set<string>,
): string {
  const text = context.client === 'gemini' ? bareReferences(value, notes) : value;
  if (!text.includes('${')) return text;
  return text.replace(/\$\{([^}]*)\}/g, (whole, body: string) => {
    if (body.startsWith('env:')) return `\${${body.slice(4)}}`;
    if (body === 'workspaceFolder' || body === 'workspaceRoot') {
      if (where === 'other') {
        notes.add(`\${${body}} is only supported in args and env; it was left as written`);
        return whole;
      }
      return '${projectRoot}';
    }
    if (body === 'userHome') return context.home;
    if (body.startsWith('input:')) {
      const id = body.slice(6);
      const variable = inputVariable(id);
      const input = context.inputs.get(id);
      const what = input?.password === true ? 'a secret' : 'a value';
      notes.add(
        `asks for ${what} "${id}" in ${context.from ?? context.client}: export ${variable} before starting clat`,
      );
      return `\${${variable}}`;
    }
    return whole;
  });
}

const KNOWN_STDIO = new Set(['type', 'command', 'args', 'env', 'cwd']);
const KNOWN_HTTP = new Set(['type', 'url', 'httpUrl', 'headers', 'http_headers']);
/** Fields that are documentation or client UI only: dropped without a note. */
const FILTERS = new Set(['includeTools', 'excludeTools', 'enabled_tools', 'disabled_tools']);
const COSMETIC = new Set(['description', 'name', 'title', 'icon', 'gallery', 'version']);

/** Maps one entry; `raw` is whatever the other client stored under the server's name. */
export function mapForeignEntry(raw: unknown, context: MapContext): MappedEntry {
  const notes = new Set<string>();
  if (!isMap(raw)) return { skipped: 'the entry is not an object', notes: [] };
  const type = typeof raw.type === 'string' ? raw.type.toLowerCase() : undefined;
  const command = typeof raw.command === 'string' ? raw.command : undefined;
  // Gemini: `httpUrl` is Streamable HTTP, `url` the older HTTP+SSE transport unless its `type`
  // says http.
  const streamable = type === 'http' || type === 'streamable-http' || type === 'streamablehttp';
  const sse = type === 'sse' || (context.client === 'gemini' && !streamable);
  const url = typeof raw.url === 'string' ? raw.url : undefined;
  const httpUrl = typeof raw.httpUrl === 'string' ? raw.httpUrl : sse ? undefined : url;
  // The HTTP+SSE transport of 2024-11-05.
  const sseUrl = command === undefined && httpUrl === undefined && sse ? url : undefined;
  let entry: JsonMap;
  let known: Set<string>;
  if (command !== undefined) {
    known = KNOWN_STDIO;
    entry = { command: rewrite(command, 'other', context, notes) };
    if (raw.args !== undefined && !Array.isArray(raw.args)) {
      notes.add('"args" is not a list of words, so it was left out');
    }
    if (Array.isArray(raw.args)) {
      entry.args = raw.args
        .filter((arg): arg is string | number => typeof arg === 'string' || typeof arg === 'number')
        .map((arg) => rewrite(String(arg), 'args', context, notes));
    }
    const env = stringMap(raw.env);
    if (env !== undefined && Object.keys(env).length > 0) {
      for (const key of Object.keys(env)) env[key] = rewrite(env[key] ?? '', 'env', context, notes);
      entry.env = env;
    }
    if (typeof raw.cwd === 'string') entry.cwd = rewrite(raw.cwd, 'other', context, notes);
  } else if (httpUrl !== undefined || sseUrl !== undefined) {
    known = KNOWN_HTTP;
    entry =
      sseUrl === undefined
        ? { url: rewrite(httpUrl ?? '', 'other', context, notes) }
        : { type: 'sse', url: rewrite(sseUrl, 'other', context, notes) };
    const headers: Record<string, string> = {
      ...stringMap(raw.headers),
      ...stringMap(raw.http_headers),
    };
    // Codex: header values or a bearer token taken from named environment variables.
    const fromEnv = stringMap(raw.env_http_headers);
    for (const [header, variable] of Object.entries(fromEnv ?? {})) {
      headers[header] = `\${${variable}}`;
    }
    if (typeof raw.bearer_token_env_var === 'string') {
      headers.Authorization = `Bearer \${${raw.bearer_token_env_var}}`;
    }
    for (const key of Object.keys(headers)) {
      headers[key] = rewrite(headers[key] ?? '', 'other', context, notes);
    }
    if (Object.keys(headers).length > 0) entry.headers = headers;
    const oauth = mapOAuth(raw.oauth, context, notes);
    if (oauth !== undefined) entry.oauth = oauth;
  } else {
    return { skipped: 'the entry has neither a command nor a URL', notes: [] };
  }
  if (raw.disabled === true || raw.enabled === false) {
    entry.disabled = true;
    notes.add(
      `disabled in ${context.from ?? context.client}: ${context.from === undefined ? 'imported' : 'added'} disabled ("clat mcp enable" starts it)`,
    );
  }
  // Tool filters: Gemini's includeTools/excludeTools, Codex's enabled_tools/disabled_tools.
  const include = stringList(raw.includeTools ?? raw.enabled_tools);
  const exclude = stringList(raw.excludeTools ?? raw.disabled_tools);
  if (include !== undefined) entry.includeTools = include;
  if (exclude !== undefined) entry.excludeTools = exclude;
  for (const key of Object.keys(raw)) {
    if (known.has(key) || COSMETIC.has(key) || FILTERS.has(key)) continue;
    if (key === 'env_http_headers' || key === 'bearer_token_env_var') continue;
    if (key === 'env_vars') continue; // Codex passes named variables through; CLAT passes all.
    if (key === 'enabled' || key === 'disabled') continue;
    if (key === 'oauth' && known === KNOWN_HTTP && isMap(raw.oauth)) continue; // mapOAuth said.
    notes.add(describeUnmapped(key));
  }
  return { entry, notes: [...notes] };
}

/** What of an `oauth` block CLAT's own `oauth` takes (Claude Code's and Gemini CLI's fields). */
const OAUTH_KNOWN = new Set([
  'clientId',
  'clientSecret',
  'callbackPort',
  'scopes',
  'enabled',
  // CLAT's own, for an entry pasted from another CLAT's mcp.json (`clat mcp add-json`).
  'clientMetadataUrl',
  'grant',
]);

/**
 * A client registered by hand (`clientId`, its `clientSecret`, Claude Code's `callbackPort`) and
 * the scopes to ask for (a list, or Claude Code's space-separated string) carry over; endpoints
 * CLAT discovers itself are said. Undefined when nothing carries over.
 */
function mapOAuth(raw: unknown, context: MapContext, notes: Set<string>): JsonMap | undefined {
  if (raw === undefined) return undefined;
  if (!isMap(raw)) {
    notes.add('"oauth" is not an object, so it was left out');
    return undefined;
  }
  const out: JsonMap = {};
  if (typeof raw.clientId === 'string') out.clientId = raw.clientId;
  if (typeof raw.clientSecret === 'string')
    out.clientSecret = rewrite(raw.clientSecret, 'other', context, notes);
  if (raw.callbackPort !== undefined) out.callbackPort = raw.callbackPort;
  for (const key of ['clientMetadataUrl', 'grant'] as const) {
    if (raw[key] !== undefined) out[key] = raw[key];
  }
  const scopes =
    typeof raw.scopes === 'string'
      ? raw.scopes.split(/\s+/).filter(Boolean)
      : stringList(raw.scopes);
  if (scopes !== undefined && scopes.length > 0) out.scopes = scopes;
  for (const key of Object.keys(raw)) {
    if (OAUTH_KNOWN.has(key)) continue;
    notes.add(
      `"oauth.${key}" was not imported: CLAT discovers the authorization server from the MCP server (sign in with clat mcp login once it is added)`,
    );
  }
  if (
    context.client === 'claude-code' &&
    out.clientId !== undefined &&
    out.clientSecret === undefined
  ) {
    // Claude Code keeps a client's secret in the system keychain, never in its files.
    notes.add(
      `a client secret of "oauth.clientId" is not in ${context.from ?? context.client}'s file: if the client has one, add the entry again with --client-secret (see clat mcp add --help)`,
    );
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

function describeUnmapped(key: string): string {
  switch (key) {
    case 'envFile':
      return '"envFile" is not read by CLAT; put those variables in the environment or "env"';
    case 'timeout':
    case 'startup_timeout_sec':
    case 'startup_timeout_ms':
    case 'tool_timeout_sec':
      return `"${key}" was not imported: CLAT applies its own limits (10 s handshake, 120 s per call)`;
    case 'trust':
    case 'alwaysAllow':
    case 'autoApprove':
      return `"${key}" was not imported: CLAT asks per its permission mode`;
    case 'oauth':
    case 'authProviderType':
      return `"${key}" was not imported: sign in to the server with clat once it is added`;
    default:
      return `"${key}" has no CLAT equivalent and was not imported`;
  }
}
