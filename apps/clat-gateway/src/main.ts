/**
 * `clat-gateway`: opens the trusted project, starts mounting its plugins in the background and
 * serves them at once over stdio (or Streamable HTTP). The first listing waits (bounded) for the
 * initial surface; the first call freezes it, like `clat`'s first run. stdout carries only MCP;
 * diagnostics go to stderr.
 * @module
 */
import { errorMessage, isClatError, sanitizeTerminalLine } from '@clat/kernel';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { gatewayClatHome, parseGatewayArgs, USAGE } from './cli-args.js';
import { openGatewayHost } from './compose.js';
import { GatewayRuntime } from './gateway-runtime.js';
import { createGatewayServer } from './gateway-server.js';
import { type HttpBind, type HttpGateway, parseHttpBind, serveHttp } from './http-serve.js';
import { GATEWAY_VERSION } from './version.js';

function fail(error: unknown): number {
  const code = isClatError(error) ? ` [${error.code}]` : '';
  process.stderr.write(`clat-gateway:${code} ${sanitizeTerminalLine(errorMessage(error))}\n`);
  return isClatError(error) && error.code === 'GATEWAY_USAGE' ? 2 : 1;
}

export async function main(argv: readonly string[]): Promise<number> {
  let args: ReturnType<typeof parseGatewayArgs>;
  try {
    args = parseGatewayArgs(argv);
  } catch (error) {
    return fail(error);
  }
  if (args.version) {
    process.stdout.write(`clat-gateway ${GATEWAY_VERSION}\n`);
    return 0;
  }
  let bind: HttpBind | undefined;
  try {
    bind = args.http === undefined ? undefined : parseHttpBind(args.http, args.allowRemote);
  } catch (error) {
    return fail(error);
  }
  if (args.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  let gateway: Awaited<ReturnType<typeof openGatewayHost>>;
  try {
    gateway = await openGatewayHost({
      project: args.project,
      cwd: process.cwd(),
      env: process.env,
      clatHome: gatewayClatHome(process.env, process.cwd()),
      trust: args.trust,
    });
  } catch (error) {
    return fail(error);
  }
  for (const issue of gateway.configIssues) {
    process.stderr.write(`clat-gateway: config: ${sanitizeTerminalLine(issue)}\n`);
  }
  const shutdown = new AbortController();
  const runtime = new GatewayRuntime(gateway, args.mode, shutdown.signal, args.waitMs);
  gateway.host.start();
  // A server that failed to start is said on stderr too, not only in clat://status: an MCP client
  // shows the gateway's stderr in its log, and a shorter tool list says nothing of why.
  void gateway.host.mount.start().then(() => {
    for (const server of gateway.host.mount.summary().servers) {
      if (server.failure === undefined) continue;
      process.stderr.write(
        `clat-gateway: server ${sanitizeTerminalLine(server.name)} failed: ${sanitizeTerminalLine(server.failure)}\n`,
      );
    }
  });
  const onerror = (error: Error) =>
    process.stderr.write(`clat-gateway: ${sanitizeTerminalLine(error.message)}\n`);
  const closed = new Promise<void>((resolve) => {
    const done = () => resolve();
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
    if (bind === undefined) {
      process.stdin.once('end', done);
      process.stdin.once('close', done);
    }
  });
  let stop: () => Promise<void>;
  if (bind === undefined) {
    const stdio = serveStdio(() => createGatewayServer(runtime), { onerror });
    stop = () => stdio.close();
  } else {
    let http: HttpGateway;
    try {
      http = await serveHttp(
        () => createGatewayServer(runtime, { announce: false }),
        bind,
        onerror,
        (listener) => runtime.onSurfaceChanged(listener),
      );
    } catch (error) {
      await runtime.close().catch(() => {});
      return fail(error);
    }
    // The token is printed once, here, and nowhere else (not in clat://status, not in errors).
    process.stderr.write(
      `clat-gateway: serving ${http.url}\nclat-gateway: bearer token: ${http.token}\n`,
    );
    stop = () => http.close();
  }
  await closed;
  shutdown.abort(new Error('clat-gateway is shutting down'));
  await stop().catch(() => {});
  await runtime.close().catch((error: unknown) => fail(error));
  return 0;
}
