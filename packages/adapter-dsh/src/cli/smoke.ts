/**
 * `clat-dsh test`: a real smoke against a spawned server, in both eras, each in a fresh process
 * (as CLAT does): legacy `initialize` → `notifications/initialized` → `tools/list`
 * (→ `prompts/list`), and modern `server/discover` → `tools/list` with the per-request `_meta`.
 * @module
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { HOST_SERVICES_CAPABILITY, HOST_SERVICES_EXTENSION } from '@clat/adapter-mcp';
import { sanitizeTerminalLine, stderrSummary } from '@clat/kernel';
import { DshAdapterError, DshErrorCode } from '../errors.js';

/** Upper bound of one smoke (per era); a hang fails instead of blocking the caller. */
export const SMOKE_TIMEOUT_MS = 15_000;

export interface SpawnSpec {
  command: string;
  args: string[];
  cwd: string;
  env?: Record<string, string | undefined>;
}

export interface SmokeTool {
  name: string;
  annotations?: Record<string, unknown>;
}

export interface SmokeReport {
  legacy: {
    protocolVersion: string;
    serverName: string;
    tools: SmokeTool[];
    prompts: string[];
    hostServices: boolean;
  };
  modern: { supportedVersions: string[]; tools: SmokeTool[] };
}

const CAPABILITIES = {
  sampling: {},
  elicitation: {},
  experimental: { [HOST_SERVICES_EXTENSION]: HOST_SERVICES_CAPABILITY },
};

class LineClient {
  readonly #child: ChildProcess;
  readonly #waiters = new Map<number, (message: Record<string, unknown>) => void>();
  readonly #stderr: string[] = [];
  #buffer = '';
  #exit: string | undefined;
  #onExit: (() => void)[] = [];

  constructor(spec: SpawnSpec) {
    this.#child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: { ...process.env, ...spec.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.#child.stdout?.setEncoding('utf8');
    this.#child.stdout?.on('data', (chunk: string) => {
      this.#buffer += chunk;
      let newline = this.#buffer.indexOf('\n');
      while (newline >= 0) {
        const line = this.#buffer.slice(0, newline).trim();
        this.#buffer = this.#buffer.slice(newline + 1);
        if (line !== '') this.#onLine(line);
        newline = this.#buffer.indexOf('\n');
      }
    });
    this.#child.stderr?.setEncoding('utf8');
    this.#child.stderr?.on('data', (chunk: string) => {
      this.#stderr.push(...chunk.split('\n').filter((line) => line.trim() !== ''));
      if (this.#stderr.length > 20) this.#stderr.splice(0, this.#stderr.length - 20);
    });
    this.#child.on('error', (error) => this.#exited(`spawn failed: ${error.message}`));
    this.#child.on('exit', (code, signal) =>
      this.#exited(`exited with ${signal ?? `code ${code}`}`),
    );
    this.#child.stdin?.on('error', () => {});
  }

  /** What of the stderr explains a failure: a crash's error line, then the last lines. */
  get stderrTail(): string {
    return stderrSummary(this.#stderr).join(' | ');
  }

  #exited(reason: string): void {
    this.#exit ??= reason;
    for (const wake of this.#onExit.splice(0)) wake();
  }

  #onLine(line: string): void {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(line) as Record<string, unknown>;
    } catch {
      this.#stderr.push(`(non-JSON stdout) ${line.slice(0, 200)}`);
      return;
    }
    if (typeof message.id === 'number' && !('method' in message))
      this.#waiters.get(message.id)?.(message);
  }

  notify(method: string, params: Record<string, unknown>): void {
    this.#child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', method, params })}\n`);
  }

  request(
    id: number,
    method: string,
    params: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      if (this.#exit !== undefined) {
        reject(new Error(`server ${this.#exit} before ${method}`));
        return;
      }
      this.#onExit.push(() => reject(new Error(`server ${this.#exit} during ${method}`)));
      this.#waiters.set(id, (message) => {
        this.#waiters.delete(id);
        if (isRecord(message.error)) {
          reject(
            new Error(
              `${method} failed: ${String(message.error.message)} (${String(message.error.code)})`,
            ),
          );
        } else if (isRecord(message.result)) {
          resolve(message.result);
        } else {
          reject(new Error(`${method} returned no result object`));
        }
      });
      this.#child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  async close(): Promise<void> {
    if (this.#exit !== undefined) return;
    const exited = new Promise<void>((resolve) => this.#onExit.push(resolve));
    this.#child.stdin?.end();
    const kill = setTimeout(() => this.#child.kill('SIGKILL'), 3_000);
    await exited;
    clearTimeout(kill);
  }

  kill(): void {
    if (this.#exit === undefined) this.#child.kill('SIGKILL');
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toolsOf(result: Record<string, unknown>): SmokeTool[] {
  if (!Array.isArray(result.tools)) throw new Error('tools/list returned no tools array');
  return result.tools.map((tool: unknown) => {
    if (!isRecord(tool) || typeof tool.name !== 'string')
      throw new Error('tools/list returned a tool without a name');
    return isRecord(tool.annotations)
      ? { name: tool.name, annotations: tool.annotations }
      : { name: tool.name };
  });
}

async function withClient<T>(
  spec: SpawnSpec,
  what: string,
  run: (client: LineClient) => Promise<T>,
): Promise<T> {
  const client = new LineClient(spec);
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${SMOKE_TIMEOUT_MS} ms`)),
        SMOKE_TIMEOUT_MS,
      );
    });
    const result = await Promise.race([run(client), deadline]);
    await client.close();
    return result;
  } catch (error) {
    const tail = client.stderrTail;
    client.kill();
    throw new DshAdapterError(
      DshErrorCode.SMOKE_FAILED,
      `${what} smoke failed: ${(error as Error).message}${tail === '' ? '' : `; server stderr: ${tail}`}`,
      { cause: error },
    );
  } finally {
    clearTimeout(timer);
  }
}

export async function smokeTest(spec: SpawnSpec): Promise<SmokeReport> {
  const legacy = await withClient(spec, 'legacy', async (client) => {
    const init = await client.request(1, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: CAPABILITIES,
      clientInfo: { name: 'clat-dsh-test', version: '0.1.0' },
    });
    client.notify('notifications/initialized', {});
    const tools = toolsOf(await client.request(2, 'tools/list', {}));
    const capabilities = isRecord(init.capabilities) ? init.capabilities : {};
    let prompts: string[] = [];
    if (isRecord(capabilities.prompts)) {
      const listed = await client.request(3, 'prompts/list', {});
      prompts = (Array.isArray(listed.prompts) ? listed.prompts : [])
        .filter(isRecord)
        .map((prompt) => String(prompt.name));
    }
    const experimental = isRecord(capabilities.experimental) ? capabilities.experimental : {};
    const host = experimental[HOST_SERVICES_EXTENSION];
    return {
      protocolVersion: String(init.protocolVersion),
      serverName: isRecord(init.serverInfo) ? String(init.serverInfo.name) : 'unknown',
      tools,
      prompts,
      hostServices: isRecord(host) && host.version === HOST_SERVICES_CAPABILITY.version,
    };
  });
  const modern = await withClient(spec, 'modern', async (client) => {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': CAPABILITIES,
      'io.modelcontextprotocol/clientInfo': { name: 'clat-dsh-test', version: '0.1.0' },
    };
    const discover = await client.request(1, 'server/discover', { _meta: meta });
    if (discover.resultType !== 'complete')
      throw new Error('server/discover result has no resultType "complete"');
    const supportedVersions = Array.isArray(discover.supportedVersions)
      ? discover.supportedVersions.map(String)
      : [];
    const listed = await client.request(2, 'tools/list', { _meta: meta });
    if (listed.resultType !== 'complete')
      throw new Error('modern tools/list result has no resultType "complete"');
    return { supportedVersions, tools: toolsOf(listed) };
  });
  const legacyNames = legacy.tools.map((tool) => tool.name).join(',');
  const modernNames = modern.tools.map((tool) => tool.name).join(',');
  if (legacyNames !== modernNames) {
    throw new DshAdapterError(
      DshErrorCode.SMOKE_FAILED,
      `the eras list different tools: legacy [${legacyNames}] vs modern [${modernNames}]`,
    );
  }
  return { legacy, modern };
}

/**
 * The text report. Everything in it comes from the server under test (its name, protocol
 * versions, prompt and tool names, annotations), so each field goes through the terminal
 * sanitiser.
 */
export function formatSmokeReport(report: SmokeReport): string {
  const line = sanitizeTerminalLine;
  const tools = report.legacy.tools
    .map(
      (tool) =>
        `${line(tool.name)}${tool.annotations === undefined ? '' : ` ${line(JSON.stringify(tool.annotations))}`}`,
    )
    .join('\n  ');
  return [
    `legacy:   initialize ok (${line(report.legacy.protocolVersion)}, server ${line(report.legacy.serverName)}, host services ${report.legacy.hostServices ? 'yes' : 'no'})`,
    `modern:   server/discover ok (${report.modern.supportedVersions.map(line).join(', ')})`,
    `prompts:  ${report.legacy.prompts.length === 0 ? '(none)' : report.legacy.prompts.map(line).join(', ')}`,
    `tools (${report.legacy.tools.length}):${tools === '' ? ' (none)' : `\n  ${tools}`}`,
    '',
  ].join('\n');
}
