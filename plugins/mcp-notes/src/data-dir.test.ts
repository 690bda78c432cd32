import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveDataDir } from './data-dir.js';

describe('resolveDataDir', () => {
  it('prefers MCP_NOTES_DIR, then config dataDir, then CLAT_PLUGIN_DATA', () => {
    const config = JSON.stringify({ dataDir: '/cfg' });
    expect(resolveDataDir({ MCP_NOTES_DIR: 'n', CLAT_PLUGIN_CONFIG: config }, '/w')).toBe('/w/n');
    expect(resolveDataDir({ CLAT_PLUGIN_CONFIG: config, CLAT_PLUGIN_DATA: '/d' }, '/w')).toBe(
      '/cfg',
    );
    expect(resolveDataDir({ CLAT_PLUGIN_CONFIG: '{}', CLAT_PLUGIN_DATA: '/d' }, '/w')).toBe('/d');
  });

  it('never writes into the immutable artifact cwd of an installed package', () => {
    const dir = resolveDataDir({ CLAT_PLUGIN_ID: 'mcp-notes', CLAT_HOME: '/h' }, '/artifact');
    expect(dir).toBe(join('/h', 'plugin-data', 'mcp-notes'));
  });

  it('uses the cwd for a plain user-configured server', () => {
    expect(resolveDataDir({}, '/w')).toBe('/w');
  });

  it('rejects a bad config with a message naming the field', () => {
    expect(() => resolveDataDir({ CLAT_PLUGIN_CONFIG: '{' }, '/w')).toThrow('CLAT_PLUGIN_CONFIG');
    expect(() => resolveDataDir({ CLAT_PLUGIN_CONFIG: '{"dataDir":"rel"}' }, '/w')).toThrow(
      'CLAT_PLUGIN_CONFIG.dataDir',
    );
  });
});
