/**
 * The clients `pnpm bench` measures side by side, each over the same fixture server: the CLAT
 * pipeline, the MCP TypeScript SDK 1.x and 2.x Clients, the AI SDK's MCP client, mcporter's
 * runtime and a hand-written JSON-RPC floor. Every peer has the same shape:
 * `open(server, home)` → `{ call(tool, args), close() }` and `connectList(server, home)` →
 * `{ tools, close() }` (a bench times the connect and list, not the close).
 */
import { createMCPClient } from '@ai-sdk/mcp';
import { StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createRuntime } from 'mcporter';
import { BENCH_SERVER, bareClient, bounded, mountClat, NODE } from './lib.mjs';

const INFO = { name: 'clat-bench', version: '1.0.0' };

async function sdkV1(server, home) {
  const client = new ClientV1(INFO, { capabilities: {} });
  await client.connect(new StdioV1({ command: NODE, args: [server], stderr: 'ignore', cwd: home }));
  return client;
}

async function sdkV2(server, home) {
  const client = new ClientV2(INFO, { capabilities: {} });
  await client.connect(new StdioV2({ command: NODE, args: [server], stderr: 'ignore', cwd: home }));
  return client;
}

function aiSdk(server, home) {
  return createMCPClient({
    name: INFO.name,
    version: INFO.version,
    transport: new StdioMCPTransport({
      command: NODE,
      args: [server],
      stderr: 'ignore',
      cwd: home,
    }),
  });
}

function mcporterRuntime(servers, home) {
  return createRuntime({
    clientInfo: INFO,
    servers: servers.map(([name, server]) => ({
      name,
      command: { kind: 'stdio', command: NODE, args: [server], cwd: home },
    })),
  });
}

/** A tool result whose text is one block, as every peer returns it. */
function textLength(result) {
  const block = result?.content?.[0];
  return typeof block?.text === 'string' ? block.text.length : -1;
}

export const PEERS = [
  {
    id: 'clat',
    label: 'CLAT pipeline',
    async open(server, home) {
      const clat = await mountClat(`p${Math.random().toString(36).slice(2, 8)}`, home, server);
      return { call: clat.call, close: clat.close, length: (r) => r.content.length };
    },
  },
  {
    id: 'sdkV1',
    label: '@modelcontextprotocol/sdk 1.x Client',
    async open(server, home) {
      const client = await sdkV1(server, home);
      return {
        call: (name, args) => client.callTool({ name, arguments: args }),
        close: () => client.close(),
        length: textLength,
      };
    },
    async connectList(server, home) {
      const client = await sdkV1(server, home);
      const { tools } = await client.listTools();
      return { tools: tools.length, close: () => client.close() };
    },
  },
  {
    id: 'sdkV2',
    label: '@modelcontextprotocol/client 2.x',
    async open(server, home) {
      const client = await sdkV2(server, home);
      return {
        call: (name, args) => client.callTool({ name, arguments: args }),
        close: () => client.close(),
        length: textLength,
      };
    },
    async connectList(server, home) {
      const client = await sdkV2(server, home);
      const { tools } = await client.listTools();
      return { tools: tools.length, close: () => client.close() };
    },
  },
  {
    id: 'aiSdk',
    label: '@ai-sdk/mcp',
    async open(server, home) {
      const client = await aiSdk(server, home);
      return {
        call: (name, args) => client.callTool({ name, arguments: args }),
        close: () => client.close(),
        length: textLength,
      };
    },
    async connectList(server, home) {
      const client = await aiSdk(server, home);
      const { tools } = await client.listTools();
      return { tools: tools.length, close: () => client.close() };
    },
  },
  {
    id: 'mcporter',
    label: 'mcporter runtime',
    async open(server, home) {
      const runtime = await mcporterRuntime([['bench', server]], home);
      // The first call connects; the measured calls reuse that connection.
      await runtime.callTool('bench', 'echo', { args: { text: 'connect' } });
      return {
        call: (name, args) => runtime.callTool('bench', name, { args }),
        close: () => runtime.close(),
        length: textLength,
      };
    },
    async connectList(server, home) {
      const runtime = await mcporterRuntime([['bench', server]], home);
      const tools = await runtime.listTools('bench');
      return { tools: tools.length, close: () => runtime.close() };
    },
  },
  {
    id: 'bare',
    label: 'bare JSON-RPC over a pipe (floor)',
    async open(server) {
      const client = await bareClient(server);
      return {
        call: client.call,
        close: client.close,
        length: (message) => textLength(message.result),
      };
    },
    async connectList(server) {
      const client = await bareClient(server);
      const listed = await client.request('tools/list', {});
      return { tools: listed.result.tools.length, close: () => client.close() };
    },
  },
];

/** 10 servers at once through each peer that can hold several (mcporter: one runtime). */
export async function connectListMany(peer, servers, home) {
  if (peer.id === 'mcporter') {
    const runtime = await mcporterRuntime(servers, home);
    const counts = await Promise.all(servers.map(([name]) => runtime.listTools(name)));
    return {
      tools: counts.reduce((sum, tools) => sum + tools.length, 0),
      close: () => runtime.close(),
    };
  }
  const each = await Promise.all(servers.map(([, server]) => peer.connectList(server, home)));
  return {
    tools: each.reduce((sum, listed) => sum + listed.tools, 0),
    close: () => Promise.all(each.map((listed) => listed.close())),
  };
}

/** Opens every peer on the bench server; a peer that fails is reported, not fatal. */
export async function openPeers(home) {
  const open = [];
  const errors = {};
  for (const peer of PEERS) {
    try {
      open.push({
        ...peer,
        client: await bounded(() => peer.open(BENCH_SERVER, home), 60_000, peer.id),
      });
    } catch (error) {
      errors[peer.id] = String(error.message ?? error).split('\n')[0];
    }
  }
  return { open, errors };
}
