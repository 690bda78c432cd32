/**
 * Shared harness of the stdio e2e tests and the fault zoo: real subprocesses through the real
 * transport, client core, kernel registry, scope and tool pipeline.
 * @module
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type McpServerStatus,
  type McpTimeouts,
  type MountedMcpServer,
  mountMcpServer,
} from '@clat/adapter-mcp';
import { StdioTransportFactory, type StdioTransportOptions } from '@clat/adapter-mcp-stdio';
import { PluginHostBridge } from '@clat/kernel';
import { groupMembers } from '@clat/process';
import { KernelHarness } from '../support/kernel-harness.js';

export const TEST_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const FIXTURES = join(TEST_ROOT, 'fixtures', 'mcp-servers');

/** Entry script of an npm MCP server installed as a devDependency of test/. */
export function npmServer(pkg: string): string {
  return join(TEST_ROOT, 'node_modules', '@modelcontextprotocol', pkg, 'dist', 'index.js');
}

/** Node running one fixture script under test/fixtures/mcp-servers/. */
export function fixture(file: string): { command: string; args: string[] } {
  return { command: process.execPath, args: [join(FIXTURES, file)] };
}

export interface MountOptions {
  timeouts?: Partial<McpTimeouts>;
  /** Serve sampling, elicitation and io.artec.clat/* through the real PluginHostBridge. */
  withHost?: boolean;
  /** `false`: do not offer the project root as an MCP root (mcp.json `"roots": false`). */
  roots?: boolean;
}

/**
 * One project's worth of kernel state plus every spawned pid, so `close()` can prove no process
 * of any server survived.
 */
export class McpHarness extends KernelHarness {
  readonly bridge = new PluginHostBridge({ projectRoot: TEST_ROOT, pipeline: this.pipeline });
  readonly factories: StdioTransportFactory[] = [];
  // The promise, not the path: mounts run in parallel, and each would make (and leak) its own.
  #home: Promise<string> | undefined;

  home(): Promise<string> {
    this.#home ??= mkdtemp(join(tmpdir(), 'clat-e2e-home-'));
    return this.#home;
  }

  async factory(
    options: Omit<StdioTransportOptions, 'defaultCwd'> & { defaultCwd?: string },
  ): Promise<StdioTransportFactory> {
    const factory = new StdioTransportFactory({ defaultCwd: await this.home(), ...options });
    this.factories.push(factory);
    return factory;
  }

  async mount(
    name: string,
    launch: Omit<StdioTransportOptions, 'defaultCwd' | 'name'>,
    options: MountOptions = {},
  ): Promise<{ mounted: MountedMcpServer; factory: StdioTransportFactory }> {
    const factory = await this.factory({ name, ...launch });
    const mounted = await mountMcpServer({
      name,
      factory,
      registry: this.registry,
      prompts: this.prompts,
      scope: this.scope.pluginScope(name),
      projectRoot: TEST_ROOT,
      onDiagnostic: (message) => this.diagnostics.push(message),
      ...(options.timeouts === undefined ? {} : { timeouts: options.timeouts }),
      ...(options.withHost === true ? { hostServices: this.bridge } : {}),
      ...(options.roots === false ? { offerRoots: false } : {}),
    });
    this.mounted.push(mounted);
    return { mounted, factory };
  }

  /** Every pid any factory of this harness spawned. */
  spawnedPids(): number[] {
    return this.factories.flatMap((f) => [...f.spawnedPids]);
  }

  /** Live, non-zombie processes left in any spawned process group. */
  survivors(): number[] {
    return this.spawnedPids().flatMap((pid) => groupMembers(pid));
  }

  override async close(): Promise<void> {
    await super.close();
    if (this.#home !== undefined) await rm(await this.#home, { recursive: true, force: true });
  }
}

/** Text a status line would show: failure, warnings and stderr tail. */
export function statusText(status: McpServerStatus): string {
  return [status.failure ?? '', ...status.warnings, ...status.stderrTail].join('\n');
}
