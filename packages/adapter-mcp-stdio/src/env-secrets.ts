/**
 * Which of a stdio server's environment values are secrets.
 * @module
 */
import { isSecretName } from '@clat/kernel';

/** Variables the package store sets on installed servers; none of them holds a secret. */
const STORE_SET_ENV = new Set([
  'CLAT_PLUGIN_ID',
  'CLAT_PLUGIN_NAME',
  'CLAT_PLUGIN_VERSION',
  'CLAT_PLUGIN_TREE_SHA256',
  'CLAT_PLUGIN_TRUST',
  'CLAT_PLUGIN_DATA',
  'CLAT_PLUGIN_PUBLISHER',
]);

/** Switches, log levels and environment names: values no one keeps secret. */
const PLAIN_WORD =
  /^(?:true|false|yes|no|on|off|enabled?|disabled?|trace|debug|info|warn(?:ing)?|error|fatal|silent|verbose|quiet|production|development|dev|prod|staging|test|none|auto|stdio|https?|sse|json|text|utf-?8)$/i;
/** Names whose numeric value is a setting, not a PIN: a port, a timeout, a size or count. */
const NUMERIC_SETTING =
  /(?:^|_)(?:PORT|TIMEOUT|MS|SECONDS|LIMIT|SIZE|MAX|MIN|COUNT|DEPTH|WORKERS|THREADS|RETRIES|CONCURRENCY|LEVEL)$/i;
/**
 * A file-system path of two parts or more (no scheme, no userinfo, none of base64's `+` and `=`):
 * a server names it in every error about it. A one-part `/xyz` may be a key that starts with `/`.
 */
const PATH = /^(?:\/|~\/)[^\s:@+=/]+\/[^\s:@+=]*$/;

/**
 * Whether the value of variable `name` is one no one keeps secret, so redacting it would only
 * garble every line it occurs in (`LOG_LEVEL=info` turned each "info" of the server's stderr into
 * [REDACTED], `PORT=3000` each port, a data file's path the file its error named). Never for a
 * variable whose name says it holds a secret (`API_KEY`, `DB_PASSWORD`).
 */
function plainValue(name: string, value: string): boolean {
  if (isSecretName(name)) return false;
  if (PLAIN_WORD.test(value) || PATH.test(value)) return true;
  return /^\d{1,6}$/.test(value) && NUMERIC_SETTING.test(name);
}

/**
 * The configured env values to redact: every one, whatever its name, except the identity and
 * paths the package store itself sets for an installed server (redacting those would hide the
 * plugin's own name, version and data path from every diagnostic: `MCP server "[REDACTED]"
 * exited`) and plain values (a switch, a log level, a port, a path) of variables whose names say
 * nothing of a secret.
 */
export function secretEnvValues(env: Readonly<Record<string, string>> | undefined): string[] {
  const values: string[] = [];
  for (const name in env) {
    const value = env[name] as string;
    if (!STORE_SET_ENV.has(name) && !plainValue(name, value)) values.push(value);
  }
  return values;
}
