/** Where the notes file lives. @module */
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

/**
 * Resolves the notes directory from the environment, first match wins:
 * `MCP_NOTES_DIR`; `CLAT_PLUGIN_CONFIG` JSON `{"dataDir": …}`; `CLAT_PLUGIN_DATA`; for an installed
 * package (`CLAT_PLUGIN_ID` set) `<CLAT_HOME or ~/.clat>/plugin-data/<id>`, because its cwd is the
 * immutable artifact directory whose bytes are digest-checked before every launch; otherwise the cwd.
 */
export function resolveDataDir(env: NodeJS.ProcessEnv, cwd: string = process.cwd()): string {
  const explicit = env.MCP_NOTES_DIR;
  if (explicit !== undefined && explicit !== '') return resolve(cwd, explicit);
  const configText = env.CLAT_PLUGIN_CONFIG;
  if (configText !== undefined && configText !== '') {
    let config: unknown;
    try {
      config = JSON.parse(configText);
    } catch {
      throw new Error('CLAT_PLUGIN_CONFIG is not valid JSON');
    }
    if (typeof config === 'object' && config !== null && 'dataDir' in config) {
      const dataDir = (config as { dataDir: unknown }).dataDir;
      if (typeof dataDir !== 'string' || !isAbsolute(dataDir)) {
        throw new Error('CLAT_PLUGIN_CONFIG.dataDir must be an absolute path');
      }
      return dataDir;
    }
  }
  const pluginData = env.CLAT_PLUGIN_DATA;
  if (pluginData !== undefined && pluginData !== '') return resolve(cwd, pluginData);
  const pluginId = env.CLAT_PLUGIN_ID;
  if (pluginId !== undefined && pluginId !== '') {
    const home =
      env.CLAT_HOME !== undefined && env.CLAT_HOME !== ''
        ? env.CLAT_HOME
        : join(homedir(), '.clat');
    return join(home, 'plugin-data', pluginId);
  }
  return cwd;
}
