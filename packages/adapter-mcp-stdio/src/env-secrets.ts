/**
 * Which of a stdio server's environment values are secrets.
 * @module
 */

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

/**
 * Every configured env value is a secret, whatever its name, except the identity and paths the
 * package store itself sets for an installed server: redacting those would hide the plugin's own
 * name, version and data path from every diagnostic (`MCP server "[REDACTED]" exited`).
 */
export function secretEnvValues(env: Readonly<Record<string, string>> | undefined): string[] {
  const values: string[] = [];
  for (const name in env) if (!STORE_SET_ENV.has(name)) values.push(env[name] as string);
  return values;
}
