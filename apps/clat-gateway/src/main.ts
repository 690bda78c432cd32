/**
 * `clat-gateway`: opens the trusted project, waits (bounded) for its servers, freezes the
 * registries, then serves them over stdio. stdout carries only MCP; diagnostics go to stderr.
 * @module
 */
import { errorMessage, isClatError, sanitizeTerminalLine } from '@clat/kernel';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { parseGatewayArgs, USAGE } from './cli-args.js';
import { openGatewayHost } from './compose.js';
import { createGatewayServer } from './gateway-server.js';

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
  if (args.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  let host: Awaited<ReturnType<typeof openGatewayHost>>;
  try {
    host = await openGatewayHost({ project: args.project, cwd: process.cwd(), env: process.env });
  } catch (error) {
    return fail(error);
  }
  for (const issue of host.configIssues) {
    process.stderr.write(`clat-gateway: config: ${sanitizeTerminalLine(issue)}\n`);
  }
  const shutdown = new AbortController();
  const runId = 'gateway';
  const bridgeRun = host.bridge.beginRun({ runId, mode: args.mode, signal: shutdown.signal });
  await host.ready();
  const closed = new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.stdin.once('end', stop);
    process.stdin.once('close', stop);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  const stdio = serveStdio(
    () => createGatewayServer({ host, mode: args.mode, runId, signal: shutdown.signal }),
    {
      onerror: (error) =>
        process.stderr.write(`clat-gateway: ${sanitizeTerminalLine(error.message)}\n`),
    },
  );
  await closed;
  shutdown.abort(new Error('clat-gateway is shutting down'));
  await stdio.close().catch(() => {});
  bridgeRun.end();
  await host.close().catch((error: unknown) => fail(error));
  return 0;
}
