/**
 * Test-only helpers: an in-process client↔server pipe so unit tests drive `serveClat` through the
 * official MCP client without spawning. (Spawned-process coverage lives in test/dsh.)
 * @module
 */
import { PassThrough } from 'node:stream';
import { HOST_SERVICES_CAPABILITY, HOST_SERVICES_EXTENSION } from '@clat/adapter-mcp';
import type { ClientCapabilities } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/client';
import { type ClatServerHandle, type ServeClatOptions, serveClat } from './serve-clat.js';

type JSONRPCMessage = Parameters<NonNullable<Client['transport']>['send']>[0];

/** A newline-JSON client transport over a pair of in-memory streams. */
export class PipeClientTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #toServer: PassThrough;
  readonly #fromServer: PassThrough;
  #buffer = '';
  /** Every frame the server wrote, parsed (for assertions on raw wire shapes). */
  readonly received: Record<string, unknown>[] = [];

  constructor(toServer: PassThrough, fromServer: PassThrough) {
    this.#toServer = toServer;
    this.#fromServer = fromServer;
  }

  async start(): Promise<void> {
    this.#fromServer.setEncoding('utf8');
    this.#fromServer.on('data', (chunk: string) => {
      this.#buffer += chunk;
      let newline = this.#buffer.indexOf('\n');
      while (newline >= 0) {
        const line = this.#buffer.slice(0, newline);
        this.#buffer = this.#buffer.slice(newline + 1);
        if (line.trim() !== '') {
          const message = JSON.parse(line) as Record<string, unknown>;
          this.received.push(message);
          this.onmessage?.(message as unknown as JSONRPCMessage);
        }
        newline = this.#buffer.indexOf('\n');
      }
    });
    this.#fromServer.on('end', () => this.onclose?.());
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.#toServer.write(`${JSON.stringify(message)}\n`);
  }

  /** Writes a raw line (for malformed-frame tests). */
  writeRaw(line: string): void {
    this.#toServer.write(line);
  }

  async close(): Promise<void> {
    this.#toServer.end();
    this.onclose?.();
  }
}

export interface ServedPair {
  server: ClatServerHandle;
  transport: PipeClientTransport;
  stderr: string[];
}

/** Starts `serveClat` on in-memory streams; the caller connects a client to `transport`. */
export async function servePaired(
  plugin: unknown,
  options: ServeClatOptions = {},
): Promise<ServedPair> {
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  const errors = new PassThrough();
  const stderr: string[] = [];
  errors.setEncoding('utf8');
  errors.on('data', (chunk: string) =>
    stderr.push(...chunk.split('\n').filter((line) => line !== '')),
  );
  const server = await serveClat(plugin, {
    input: toServer,
    output: fromServer,
    errorOutput: errors,
    env: {},
    ...options,
  });
  return { server, transport: new PipeClientTransport(toServer, fromServer), stderr };
}

/** The client capabilities CLAT sends (sampling, elicitation, host services). */
export const CLAT_LIKE_CAPABILITIES: ClientCapabilities = {
  sampling: {},
  elicitation: {},
  experimental: {
    [HOST_SERVICES_EXTENSION]: {
      ...HOST_SERVICES_CAPABILITY,
      methods: [...HOST_SERVICES_CAPABILITY.methods],
    },
  },
};

export function newClient(
  capabilities: ClientCapabilities = CLAT_LIKE_CAPABILITIES,
  mode: 'legacy' | 'auto' = 'legacy',
): Client {
  return new Client(
    { name: 'clat-test', version: '0.0.0' },
    { capabilities, versionNegotiation: { mode } },
  );
}
