import { describe, expect, it } from 'vitest';
import type { McpClient } from './client.js';
import { McpError, McpErrorCode } from './errors.js';
import { MCP_LIMITS } from './limits.js';
import { ServerRestarts } from './server-restarts.js';

describe('ServerRestarts', () => {
  it("names the host's own program when no restart is left", async () => {
    const restarts = new ServerRestarts('srv', async () => ({}) as McpClient, 'acme-agent');
    const closed = new McpError(McpErrorCode.MCP_CONNECTION_CLOSED, 'MCP server "srv" closed');
    for (let restart = 0; restart < MCP_LIMITS.serverRestarts; restart++) {
      await restarts.next(closed);
    }
    await expect(restarts.next(closed)).rejects.toThrow(
      `MCP server "srv" closed; acme-agent restarted MCP server "srv" ${MCP_LIMITS.serverRestarts} times already and does not start it again until acme-agent restarts`,
    );
  });
});
