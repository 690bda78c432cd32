/**
 * `--http`: the gateway over Streamable HTTP (official SDK `createMcpHandler`, both eras), behind
 * three gates checked before the SDK sees a byte: the Host header (DNS rebinding), the Origin
 * header (browsers), and a bearer token generated per start and printed once on stderr.
 * @module
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  type McpServerFactory,
  validateHostHeader,
  validateOriginHeader,
} from '@modelcontextprotocol/server';
import { GatewayError, GatewayErrorCode } from './errors.js';

export const MCP_PATH = '/mcp';

export interface HttpBind {
  host: string;
  port: number;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/** Parses `host:port` (`[::1]:port` for IPv6) and refuses non-loopback without `allowRemote`. */
export function parseHttpBind(value: string, allowRemote: boolean): HttpBind {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(value);
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  if (host === undefined || !Number.isInteger(port) || port > 65_535) {
    throw new GatewayError(
      GatewayErrorCode.USAGE,
      `--http ${JSON.stringify(value)} is not host:port; use for example 127.0.0.1:8765`,
    );
  }
  if (!LOOPBACK.has(host) && !allowRemote) {
    throw new GatewayError(
      GatewayErrorCode.USAGE,
      `--http ${JSON.stringify(value)} binds a non-loopback address; pass --allow-remote to expose the gateway beyond this machine`,
    );
  }
  return { host, port };
}

function refuse(
  res: ServerResponse,
  status: number,
  message: string,
  extra: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...extra });
  res.end(`${message}\n`);
}

function tokenMatches(header: string | undefined, token: Buffer): boolean {
  const presented = /^Bearer\s+(\S+)$/i.exec(header ?? '')?.[1];
  if (presented === undefined) return false;
  const bytes = Buffer.from(presented);
  return bytes.length === token.length && timingSafeEqual(bytes, token);
}

export interface HttpGateway {
  readonly url: string;
  readonly token: string;
  close(): Promise<void>;
}

/**
 * Serves `factory` at `bind`. `onSurfaceChanged`, when given, is subscribed once: each change is
 * published to every open `subscriptions/listen` stream as `tools/list_changed`.
 */
export async function serveHttp(
  factory: McpServerFactory,
  bind: HttpBind,
  onError: (error: Error) => void,
  onSurfaceChanged?: (listener: () => void) => () => void,
): Promise<HttpGateway> {
  const token = randomBytes(32).toString('base64url');
  const tokenBytes = Buffer.from(token);
  const handler = createMcpHandler(factory, { onerror: onError });
  const stopAnnouncing = onSurfaceChanged?.(() => handler.notify.toolsChanged());
  const node = toNodeHandler(handler);
  const hostnames = localhostAllowedHostnames();
  const origins = localhostAllowedOrigins();
  // A remote bind must still answer requests addressed to the name it was bound to.
  if (!LOOPBACK.has(bind.host)) {
    hostnames.push(isIP(bind.host) === 6 ? `[${bind.host}]` : bind.host);
  }
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const host = validateHostHeader(req.headers.host, hostnames);
    if (!host.ok) return refuse(res, 403, `Host refused: ${host.message}`);
    if (req.headers.origin !== undefined) {
      const origin = validateOriginHeader(req.headers.origin, origins);
      if (!origin.ok) return refuse(res, 403, `Origin refused: ${origin.message}`);
    }
    if (!tokenMatches(req.headers.authorization, tokenBytes)) {
      return refuse(
        res,
        401,
        'a valid bearer token is required (printed by clat-gateway on start)',
        {
          'www-authenticate': 'Bearer realm="clat-gateway"',
        },
      );
    }
    if (new URL(req.url ?? '/', 'http://gateway').pathname !== MCP_PATH) {
      return refuse(res, 404, `not found; the MCP endpoint is ${MCP_PATH}`);
    }
    node(req as Parameters<typeof node>[0], res).catch((error: unknown) => onError(error as Error));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(bind.port, bind.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : bind.port;
  const shownHost = isIP(bind.host) === 6 ? `[${bind.host}]` : bind.host;
  return {
    url: `http://${shownHost}:${port}${MCP_PATH}`,
    token,
    close: async () => {
      stopAnnouncing?.();
      await handler.close?.();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
