/** A throwaway CLAT home and project for driving the real `clat-gateway` binary. @module */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const GATEWAY_BIN = join(REPO, 'apps/clat-gateway/bin/clat-gateway.js');
/** The wasm-summarize example plugin: its manifest and its built component. */
export const WASM_MANIFEST = join(REPO, 'plugins/wasm-summarize/clat-plugin.json');
export const WASM_COMPONENT = join(REPO, 'plugins/wasm-summarize/dist/plugin.wasm');
export const EVERYTHING = join(
  REPO,
  'test/node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);

export interface GatewayWorld {
  home: string;
  project: string;
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

/** A home with server-everything in mcp.json and, unless `trusted` is false, a trusted project. */
export async function gatewayWorld(options: { trusted?: boolean } = {}): Promise<GatewayWorld> {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'clat-gateway-')));
  const home = join(base, 'home');
  const project = join(base, 'project');
  await mkdir(home, { recursive: true, mode: 0o700 });
  await mkdir(project, { recursive: true });
  await writeFile(join(project, 'notes.txt'), 'gateway notes\n');
  await writeFile(
    join(home, 'mcp.json'),
    JSON.stringify({
      everything: {
        command: process.execPath,
        args: [EVERYTHING, 'stdio'],
        env: { EVERYTHING_TOKEN: 'sk-gateway-secret-1234' },
      },
    }),
  );
  if (options.trusted !== false) {
    await writeFile(
      join(home, 'trust.json'),
      JSON.stringify({
        version: 1,
        projects: { [project]: { trustedAt: new Date().toISOString() } },
      }),
      { mode: 0o600 },
    );
  }
  return {
    home,
    project,
    env: { PATH: process.env.PATH ?? '', CLAT_HOME: home },
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}

/**
 * The stdio client parameters that spawn `clat-gateway` for `project` with `env` (both SDKs'
 * `StdioClientTransport` take this shape).
 */
export function gatewayStdio(
  target: { project: string; env: Record<string, string> },
  args: readonly string[] = [],
): { command: string; args: string[]; env: Record<string, string>; stderr: 'pipe' } {
  return {
    command: process.execPath,
    args: [GATEWAY_BIN, '--project', target.project, ...args],
    env: target.env,
    stderr: 'pipe',
  };
}

export interface HttpGatewayProcess {
  url: string;
  token: string;
  stderr(): string;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/** Starts `clat-gateway --http 127.0.0.1:0` and reads the URL and the token it prints once. */
export async function startHttpGateway(
  w: GatewayWorld,
  args: readonly string[],
): Promise<HttpGatewayProcess> {
  const proc: ChildProcess = spawn(
    process.execPath,
    [GATEWAY_BIN, '--project', w.project, ...args, '--http', '127.0.0.1:0'],
    { env: w.env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  const stop = async (): Promise<void> => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGTERM');
    await exited;
  };
  return await new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`gateway did not start: ${stderr}`));
    }, 50_000);
    proc.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const url = /serving (http:\/\/\S+)/.exec(stderr)?.[1];
      const token = /bearer token: (\S+)/.exec(stderr)?.[1];
      if (url !== undefined && token !== undefined) {
        clearTimeout(timer);
        resolve({ url, token, stderr: () => stderr, stop });
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited ${code}: ${stderr}`));
    });
  });
}

/**
 * An SDK v1 client connected to a new stdio gateway for the project and CLAT home of a CLI
 * sandbox (`--mode full-access`), with the gateway's stderr so far. Close it when done.
 */
export async function sandboxGatewayClient(
  sandbox: { project: string; home: string },
  name: string,
): Promise<{ client: Client; stderr: () => string }> {
  const client = new Client({ name, version: '0.0.0' });
  const transport = new StdioClientTransport(
    gatewayStdio(
      { project: sandbox.project, env: { PATH: process.env.PATH ?? '', CLAT_HOME: sandbox.home } },
      ['--mode', 'full-access'],
    ),
  );
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/** The text of the gateway's `clat://status` resource. */
export async function gatewayStatus(client: Client): Promise<string> {
  const read = await client.readResource({ uri: 'clat://status' });
  return (read.contents[0] as { text: string }).text;
}
