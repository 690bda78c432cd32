/**
 * `clat-mcp-only tools | call`: a two-command CLI over the composition in `compose.ts`.
 * @module
 */
import { parseArgs } from 'node:util';
import {
  errorMessage,
  isPermissionMode,
  type PermissionMode,
  sanitizeTerminalLine,
  sanitizeTerminalText,
} from '@clat/kernel';
import { compose } from './compose.js';

const USAGE = `usage: clat-mcp-only tools [--json] [--config FILE] [--project DIR]
       clat-mcp-only call <tool> [JSON-ARGS] [--mode read-only|project-write|full-access] [--json]
`;

type Out = { write(text: string): unknown };

/** Runs one command; returns the exit code (0 ok, 1 tool or server failure, 2 usage). */
export async function main(
  argv: readonly string[],
  io: { stdout: Out; stderr: Out } = process,
): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    io.stderr.write(`clat-mcp-only: ${errorMessage(error)}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, toolName, rawArgs] = positionals;
  const mode = values.mode ?? 'read-only';
  if ((command !== 'tools' && command !== 'call') || (command === 'call' && !toolName)) {
    io.stderr.write(USAGE);
    return 2;
  }
  if (!isPermissionMode(mode)) {
    io.stderr.write(`clat-mcp-only: --mode ${JSON.stringify(mode)} is not a permission mode\n`);
    return 2;
  }
  let args: unknown = {};
  try {
    args = rawArgs === undefined ? {} : JSON.parse(rawArgs);
  } catch {
    io.stderr.write(`clat-mcp-only: the arguments of ${toolName} are not valid JSON\n`);
    return 2;
  }
  let composed: Awaited<ReturnType<typeof compose>>;
  try {
    composed = await compose({
      configFile: values.config ?? 'mcp.json',
      projectRoot: values.project ?? process.cwd(),
      env: process.env,
    });
  } catch (error) {
    io.stderr.write(`clat-mcp-only: cannot start: ${sanitizeTerminalLine(errorMessage(error))}\n`);
    return 2;
  }
  const { host, issues } = composed;
  for (const issue of issues)
    io.stderr.write(`clat-mcp-only: config: ${sanitizeTerminalLine(issue)}\n`);
  host.start();
  try {
    const run = await host.beginRun({ mode: mode as PermissionMode });
    let failed = false;
    for (const server of host.mount.summary().servers) {
      if (server.failure === undefined) continue;
      failed = true;
      io.stderr.write(`clat-mcp-only: ${server.name}: ${sanitizeTerminalLine(server.failure)}\n`);
    }
    try {
      if (command === 'tools') {
        // The list of what did start, and exit 1 for a server that did not (as `clat mcp`).
        const listed = listTools(host.registry.list(), values.json === true, io);
        return failed ? 1 : listed;
      }
      const result = await host.pipeline.call(toolName as string, args, run.context);
      const shown =
        values.json === true ? JSON.stringify(result) : sanitizeTerminalText(result.content);
      io.stdout.write(`${shown}\n`);
      return result.isError === true ? 1 : 0;
    } finally {
      await run.end();
    }
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const suffix = typeof code === 'string' ? ` [${code}]` : '';
    io.stderr.write(`clat-mcp-only: ${sanitizeTerminalLine(errorMessage(error))}${suffix}\n`);
    return 1;
  } finally {
    await host.close();
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      config: { type: 'string' },
      project: { type: 'string' },
      mode: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
}

function listTools(
  tools: readonly { name: string; effect: string; description: string }[],
  json: boolean,
  io: { stdout: Out },
): number {
  if (json) {
    io.stdout.write(`${JSON.stringify(tools, null, 2)}\n`);
    return 0;
  }
  for (const tool of tools) {
    const summary = sanitizeTerminalLine(tool.description.split('\n')[0] ?? '');
    io.stdout.write(`${tool.name}  (${tool.effect})  ${summary}\n`);
  }
  return 0;
}
