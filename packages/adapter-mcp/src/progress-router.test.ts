import type { ToolProgress } from '@clat/kernel';
import { afterEach, describe, expect, it } from 'vitest';
import { McpClient } from './client.js';
import { META } from './protocol.js';
import {
  legacyServer,
  modernServer,
  type RequestScript,
  ScriptedFactory,
  type ScriptedServer,
} from './test-support/scripted-server.js';

const clients: McpClient[] = [];

function tokenOf(params: Record<string, unknown> | undefined): unknown {
  return (params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

/** tools/call that reports two steps for its own token and one for a stranger's. */
function progressing(resultType?: string): RequestScript {
  return async (request, peer) => {
    const meta = request.params?._meta as Record<string, unknown>;
    const token = meta.progressToken;
    await peer.notify('notifications/progress', { progressToken: 'someone-else', progress: 9 });
    await peer.notify('notifications/progress', { progressToken: token, progress: 1, total: 2 });
    await peer.notify('notifications/progress', {
      progressToken: token,
      progress: 2,
      total: 2,
      message: 'done\u001b[2J',
    });
    return {
      result: {
        ...(resultType === undefined ? {} : { resultType }),
        content: [{ type: 'text', text: 'ok' }],
      },
    };
  };
}

async function connect(setup: (server: ScriptedServer) => void): Promise<{
  client: McpClient;
  factory: ScriptedFactory;
}> {
  const factory = new ScriptedFactory(setup);
  const client = await McpClient.connect({ name: 'srv', factory });
  clients.push(client);
  return { client, factory };
}

describe('progress of tools/call', () => {
  it('sends a fresh token on every call and routes only that token to the call (legacy)', async () => {
    const { client, factory } = await connect((server) => {
      legacyServer()(server);
      server.on('tools/call', progressing());
    });
    const updates: ToolProgress[] = [];
    await client.callTool('op', {}, { onProgress: (update) => updates.push(update) });
    await client.callTool('op', {});
    const calls = factory.servers.at(-1)?.requests('tools/call') ?? [];
    const tokens = calls.map((call) => tokenOf(call.params));
    expect(tokens).toHaveLength(2);
    expect(new Set(tokens).size).toBe(2);
    // The untrusted message arrives as sent: sanitising is the display's job.
    expect(updates).toEqual([
      { progress: 1, total: 2 },
      { progress: 2, total: 2, message: 'done\u001b[2J' },
    ]);
  });

  it('puts the token next to the modern envelope in _meta (2026-07-28)', async () => {
    const { client, factory } = await connect((server) => {
      modernServer()(server);
      server.on('tools/call', progressing('complete'));
    });
    const updates: ToolProgress[] = [];
    await client.callTool('op', {}, { onProgress: (update) => updates.push(update) });
    const meta = (factory.servers.at(-1)?.requests('tools/call') ?? [])[0]?.params?._meta as Record<
      string,
      unknown
    >;
    expect(typeof meta.progressToken).toBe('string');
    expect(meta[META.protocolVersion]).toBe('2026-07-28');
    expect(updates.map((update) => update.progress)).toEqual([1, 2]);
  });

  it('drops reports that arrive after the call ended', async () => {
    let late: (() => Promise<void>) | undefined;
    const { client } = await connect((server) => {
      legacyServer()(server);
      server.on('tools/call', (request, peer) => {
        const token = tokenOf(request.params);
        late = () => peer.notify('notifications/progress', { progressToken: token, progress: 5 });
        return { result: { content: [] } };
      });
    });
    const updates: ToolProgress[] = [];
    await client.callTool('op', {}, { onProgress: (update) => updates.push(update) });
    await late?.();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(updates).toEqual([]);
  });
});
