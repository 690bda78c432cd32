/**
 * A scripted in-test JSON-RPC peer over the kernel's linked in-memory transports, plus a
 * TransportFactory that counts and keeps every transport it opens. Test-only; not exported.
 * @module
 */
import { MODERN_PROTOCOL_VERSION } from '../protocol.js';
import { createLinkedTransportPair, type InMemoryTransport } from '../testing/index.js';
import type {
  JsonRpcId,
  JsonRpcMessage,
  JsonRpcRequest,
  Transport,
  TransportFactory,
  TransportKind,
} from '../transport.js';
import { RecordingTransport } from './recording-transport.js';

export type Reply =
  | { result: Record<string, unknown> }
  | { error: { code: number; message: string; data?: unknown } }
  /** Never answer. */
  | { silent: true };

export type RequestScript = (
  request: JsonRpcRequest,
  peer: ScriptedServer,
) => Reply | Promise<Reply>;

/** The server end: answers client requests from scripts and can send its own requests. */
export class ScriptedServer {
  readonly transport: InMemoryTransport;
  readonly client: InMemoryTransport;
  /** Every message the client sent, in order. */
  readonly received: JsonRpcMessage[] = [];
  readonly #scripts = new Map<string, RequestScript>();
  readonly #waiting = new Map<string, (message: JsonRpcMessage) => void>();
  readonly #watchers = new Set<() => void>();
  #nextId = 1;
  closed = false;

  constructor() {
    const [client, server] = createLinkedTransportPair();
    this.client = client;
    this.transport = server;
    server.onmessage = (message) => this.#onMessage(message);
    server.onclose = () => {
      this.closed = true;
      this.#notifyWatchers();
    };
    void server.start();
  }

  on(method: string, script: RequestScript | Reply): this {
    this.#scripts.set(method, typeof script === 'function' ? script : () => script);
    return this;
  }

  /** Requests the client received with `method`. */
  requests(method: string): JsonRpcRequest[] {
    return this.received.filter(
      (message): message is JsonRpcRequest => 'method' in message && message.method === method,
    );
  }

  /** Resolves once a message matching `predicate` arrived (already or later). */
  waitFor(predicate: (message: JsonRpcMessage) => boolean): Promise<JsonRpcMessage> {
    return new Promise((resolve) => {
      const check = (): boolean => {
        const found = this.received.find(predicate);
        if (found === undefined) return false;
        this.#watchers.delete(watcher);
        resolve(found);
        return true;
      };
      const watcher = () => {
        check();
      };
      if (!check()) this.#watchers.add(watcher);
    });
  }

  /** Sends a server-initiated request and resolves with the client's response. */
  request(
    method: string,
    params?: Record<string, unknown>,
    id?: JsonRpcId,
  ): Promise<JsonRpcMessage> {
    const requestId = id ?? `s${this.#nextId++}`;
    const response = new Promise<JsonRpcMessage>((resolve) => {
      this.#waiting.set(String(requestId), resolve);
    });
    void this.transport.send({
      jsonrpc: '2.0',
      id: requestId,
      method,
      ...(params === undefined ? {} : { params }),
    });
    return response;
  }

  notify(method: string, params?: Record<string, unknown>): Promise<void> {
    return this.transport.send({
      jsonrpc: '2.0',
      method,
      ...(params === undefined ? {} : { params }),
    });
  }

  /** Sends a raw message (responses with chosen ids, duplicates…). */
  send(message: JsonRpcMessage): Promise<void> {
    return this.transport.send(message);
  }

  #notifyWatchers(): void {
    for (const watcher of [...this.#watchers]) watcher();
  }

  #onMessage(message: JsonRpcMessage): void {
    this.received.push(message);
    this.#notifyWatchers();
    if (!('method' in message)) {
      const waiter = this.#waiting.get(String(message.id));
      if (waiter !== undefined) {
        this.#waiting.delete(String(message.id));
        waiter(message);
      }
      return;
    }
    if (!('id' in message) || message.id === undefined) return;
    const request = message as JsonRpcRequest;
    const script = this.#scripts.get(request.method);
    const reply: Reply | Promise<Reply> = script
      ? script(request, this)
      : { error: { code: -32601, message: `Method not found: ${request.method}` } };
    void Promise.resolve(reply).then((answer) => {
      if ('silent' in answer) return;
      if (this.closed) return;
      void this.transport
        .send({ jsonrpc: '2.0', id: request.id, ...answer } as JsonRpcMessage)
        .catch(() => {});
    });
  }
}

/** A factory that opens one ScriptedServer per transport and remembers them all. */
export class ScriptedFactory implements TransportFactory {
  kind: TransportKind = 'stdio';
  readonly probeIsolation: 'fresh' | 'shared';
  readonly servers: ScriptedServer[] = [];
  /** Set to wrap each transport in a {@link RecordingTransport} with this `exchangePerMessage`. */
  record: { exchangePerMessage: boolean } | undefined;
  /** The recording wrappers, one per server, when `record` is set. */
  readonly recorders: RecordingTransport[] = [];
  readonly #setup: (server: ScriptedServer, index: number) => void;

  constructor(
    setup: (server: ScriptedServer, index: number) => void,
    probeIsolation: 'fresh' | 'shared' = 'fresh',
  ) {
    this.#setup = setup;
    this.probeIsolation = probeIsolation;
  }

  open(): Transport {
    const server = new ScriptedServer();
    this.#setup(server, this.servers.length);
    this.servers.push(server);
    if (this.record === undefined) return server.client;
    const recorder = new RecordingTransport(
      server.client,
      this.kind,
      this.record.exchangePerMessage,
    );
    this.recorders.push(recorder);
    return recorder;
  }

  get opened(): number {
    return this.servers.length;
  }
}

export interface ServerSpec {
  tools?: Record<string, unknown>[];
  capabilities?: Record<string, unknown>;
  serverInfo?: { name: string; version: string };
}

/** A legacy server: -32601 on server/discover, initialize with `version`, tools/list in one page. */
export function legacyServer(
  version = '2025-11-25',
  spec: ServerSpec = {},
): (server: ScriptedServer) => void {
  return (server) => {
    server
      .on('initialize', {
        result: {
          protocolVersion: version,
          capabilities: spec.capabilities ?? { tools: {} },
          serverInfo: spec.serverInfo ?? { name: 'legacy-test', version: '1.2.3' },
        },
      })
      .on('tools/list', { result: { tools: spec.tools ?? [] } });
  };
}

/** Envelope of a modern complete result. */
export function complete(result: Record<string, unknown> = {}): {
  result: Record<string, unknown>;
} {
  return { result: { resultType: 'complete', ...result } };
}

/** A modern server: server/discover answers 2026-07-28; tools/list in one page. */
export function modernServer(spec: ServerSpec = {}): (server: ScriptedServer) => void {
  return (server) => {
    server
      .on(
        'server/discover',
        complete({
          supportedVersions: [MODERN_PROTOCOL_VERSION],
          capabilities: spec.capabilities ?? { tools: {} },
          ttlMs: 0,
          cacheScope: 'private',
          _meta: {
            'io.modelcontextprotocol/serverInfo': spec.serverInfo ?? {
              name: 'modern-test',
              version: '0.0.1',
            },
          },
        }),
      )
      .on('tools/list', complete({ tools: spec.tools ?? [], ttlMs: 0, cacheScope: 'private' }));
  };
}

/** Lets queued in-memory deliveries run (microtasks only, so fake timers are fine). */
export async function settle(rounds = 50): Promise<void> {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
}
