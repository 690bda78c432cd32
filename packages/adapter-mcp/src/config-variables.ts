/**
 * `${VAR}` and `${VAR:-default}` in mcp.json entries (as Claude Code's `.mcp.json` reads them:
 * command, args, env, url, headers, and an OAuth client's `clientSecret`), plus `${projectRoot}`
 * in `args` and `env` only. Expansion happens when a project is opened for
 * mounting (by `clat` and `clat-gateway`); `clat mcp list|get` keep showing the entry as written, so values taken from the
 * environment (often secrets) are never echoed back. `$${` is a literal `${` (as in Docker
 * Compose), so a path that holds one can be written: `clat mcp add` writes such paths that way.
 * @module
 */

import type { ConfigIssue } from '@clat/kernel';
import type { McpServerConfig } from './config.js';
import { httpUrlProblem } from './http-url.js';

export interface VariableContext {
  /** The file the entry came from, for issues. */
  file: string;
  env: Readonly<Record<string, string | undefined>>;
  /** The trusted project root: `${projectRoot}` is allowed in `args` and `env` values only. */
  projectRoot: string;
}

const PROJECT_ROOT = 'projectRoot';
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A `${NAME}` or `${NAME:-default}`'s value in `env`, with shell semantics (`:-` also replaces an
 * empty value; a bare reference keeps it); undefined when it is unset and has no default. Also
 * what an installed server's `${env.NAME}` reads (`@clat/packaging`).
 */
export function environmentValue(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  fallback: string | undefined,
): string | undefined {
  // Own variables only: `process.env` inherits Object's prototype, so `${constructor}` would
  // read a function's text instead of being unset.
  const found = Object.hasOwn(env, name) ? env[name] : undefined;
  if (typeof found === 'string' && (found !== '' || fallback === undefined)) return found;
  return fallback;
}

/**
 * `text` written so that expansion gives it back as it is: each `${` becomes `$${`. For values
 * that are not references, such as a directory whose name holds `${`.
 */
export function literalReferences(text: string): string {
  // A function, as a replacement string would read its `$$` as one `$`.
  return text.replaceAll('${', () => '$${');
}

/** One bad reference; caught in `expandServerVariables` and turned into a ConfigIssue. */
class VariableIssue extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VariableIssue';
  }
}

/**
 * Expands one string, `$${` to a literal `${`. Throws VariableIssue (message names the variable)
 * for an unset variable without default, a malformed reference, or `${projectRoot}` where it is
 * not allowed.
 */
function expand(value: string, context: VariableContext, allowProjectRoot: boolean): string {
  if (!value.includes('${')) return value;
  let out = '';
  let index = 0;
  while (index < value.length) {
    const start = value.indexOf('${', index);
    if (start === -1) {
      out += value.slice(index);
      break;
    }
    // `$${`: the `$` before the reference escapes it (only there, so `$$` alone stays `$$`).
    if (start > index && value[start - 1] === '$') {
      out += `${value.slice(index, start - 1)}\${`;
      index = start + 2;
      continue;
    }
    out += value.slice(index, start);
    const end = value.indexOf('}', start + 2);
    if (end === -1) {
      throw new VariableIssue(`unclosed "\${" at character ${start + 1}`);
    }
    const body = value.slice(start + 2, end);
    const dash = body.indexOf(':-');
    const name = dash === -1 ? body : body.slice(0, dash);
    const fallback = dash === -1 ? undefined : body.slice(dash + 2);
    if (!NAME.test(name)) {
      throw new VariableIssue(
        `"\${${body}}" is not a variable reference; use \${NAME} or \${NAME:-default}`,
      );
    }
    if (name === PROJECT_ROOT) {
      if (!allowProjectRoot) {
        throw new VariableIssue('${projectRoot} is allowed only in "args" and "env" values');
      }
      out += context.projectRoot;
    } else {
      const found = environmentValue(context.env, name, fallback);
      if (found !== undefined) out += found;
      else {
        throw new VariableIssue(
          `the environment variable ${name} is not set and has no default (write \${${name}:-value} for one)`,
        );
      }
    }
    index = end + 1;
  }
  return out;
}

/** True when any string field of the entry holds a `${` reference. */
function hasVariables(server: McpServerConfig): boolean {
  return JSON.stringify(server).includes('${');
}

/**
 * Returns the entry with every reference expanded, or one issue per bad field (file, entry and
 * field named) so the entry is skipped and the others still mount.
 */
export function expandServerVariables(
  server: McpServerConfig,
  context: VariableContext,
): { server: McpServerConfig } | { issues: ConfigIssue[] } {
  if (!hasVariables(server)) return { server };
  const issues: ConfigIssue[] = [];
  const field = (path: string, value: string, allowProjectRoot = false): string => {
    try {
      return expand(value, context, allowProjectRoot);
    } catch (error) {
      if (!(error instanceof VariableIssue)) throw error;
      issues.push({ file: context.file, path: `${server.name}.${path}`, message: error.message });
      return value;
    }
  };
  const map = (
    path: string,
    record: Record<string, string> | undefined,
    allowProjectRoot: boolean,
  ): Record<string, string> | undefined => {
    if (record === undefined) return undefined;
    const out: Record<string, string> = {};
    for (const [key, value] of Object.entries(record)) {
      out[key] = field(`${path}.${key}`, value, allowProjectRoot);
    }
    return out;
  };
  let expanded: McpServerConfig;
  if (server.transport === 'http') {
    const url = field('url', server.url);
    // The schema let a URL with references through unchecked; check what it expanded to. The
    // expanded value is never shown: it comes from the environment and may carry a token.
    const problem = issues.length === 0 ? httpUrlProblem(url) : undefined;
    if (problem !== undefined) {
      issues.push({
        file: context.file,
        path: `${server.name}.url`,
        message:
          problem === 'not http or https'
            ? 'its variable references expand to a URL that does not use http or https'
            : 'its variable references expand to a value that is not an absolute URL',
      });
    }
    const headers = map('headers', server.headers, false);
    expanded = { ...server, url, ...(headers === undefined ? {} : { headers }) };
    // A registered client's secret, as the README shows it: "clientSecret": "${DOCS_SECRET}".
    const secret = server.oauth?.clientSecret;
    if (secret !== undefined && secret.includes('${')) {
      expanded.oauth = { ...server.oauth, clientSecret: field('oauth.clientSecret', secret) };
    }
  } else {
    const command = field('command', server.command);
    const args = server.args?.map((arg, i) => field(`args[${i}]`, arg, true));
    const env = map('env', server.env, true);
    expanded = {
      ...server,
      command,
      ...(args === undefined ? {} : { args }),
      ...(env === undefined ? {} : { env }),
    };
  }
  return issues.length > 0 ? { issues } : { server: expanded };
}
