import { describe, expect, it } from 'vitest';
import { stdioTransport } from './stdio-transport-provider.js';

describe('stdioTransport().describe', () => {
  it('treats configured env values as secrets, but not the identity the package store sets', () => {
    const provider = stdioTransport({ defaultCwd: '/home/u/.clat' });
    const described = provider.describe({
      transport: 'stdio',
      name: 'notes',
      origin: 'package',
      command: '/usr/bin/node',
      args: ['server.mjs', '--token', 'tok-abcdefgh'],
      env: {
        NOTES_PATH: '/srv/notes',
        API_KEY: 'k-123456789',
        CLAT_PLUGIN_NAME: 'mcp-notes',
        CLAT_PLUGIN_VERSION: '1.0.0',
        CLAT_PLUGIN_TREE_SHA256: 'a'.repeat(64),
        CLAT_PLUGIN_DATA: '/home/u/.clat/plugin-data/notes',
        CLAT_PLUGIN_CONFIG: '{"key":"v-secret"}',
      },
    });
    // A path of a plainly named variable is no secret: a server names it in its errors.
    expect(described.secrets).toEqual(['k-123456789', '{"key":"v-secret"}']);
    expect(described.target).toBe('/usr/bin/node server.mjs --token [REDACTED]');
  });
});
