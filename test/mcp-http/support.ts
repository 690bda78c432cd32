/**
 * Harness of the HTTP e2e tests: real HTTP servers mounted through the real transport, client
 * core, kernel registry, scope and tool pipeline.
 * @module
 */
import { type McpTimeouts, type MountedMcpServer, mountMcpServer } from '@clat/adapter-mcp';
import { HttpTransportFactory } from '@clat/adapter-mcp-http';
import {
  createGlobalScope,
  PromptRegistry,
  Redactor,
  type RunContext,
  RunEventStream,
  type Scope,
  ToolPipeline,
  ToolRegistry,
  type ToolResult,
} from '@clat/kernel';

export class HttpHarness {
  readonly registry = new ToolRegistry();
  readonly prompts = new PromptRegistry();
  readonly events = new RunEventStream();
  readonly pipeline = new ToolPipeline({ registry: this.registry, events: this.events });
  readonly scope: Scope = createGlobalScope('e2e').child('project');
  readonly mounted: MountedMcpServer[] = [];
  readonly diagnostics: string[] = [];

  async mount(
    name: string,
    url: string,
    options: { headers?: Record<string, string>; timeouts?: Partial<McpTimeouts> } = {},
  ): Promise<MountedMcpServer> {
    const redactor = new Redactor();
    redactor.addHeaders(options.headers);
    const mounted = await mountMcpServer({
      name,
      factory: HttpTransportFactory.fromConfig({ url, headers: options.headers }),
      registry: this.registry,
      prompts: this.prompts,
      scope: this.scope,
      projectRoot: process.cwd(),
      redactor,
      onDiagnostic: (message) => this.diagnostics.push(message),
      ...(options.timeouts === undefined ? {} : { timeouts: options.timeouts }),
    });
    this.mounted.push(mounted);
    return mounted;
  }

  /** Calls a registered tool through the kernel pipeline in full-access mode. */
  call(
    tool: string,
    args: Record<string, unknown> = {},
    signal?: AbortSignal,
  ): Promise<ToolResult> {
    const run: RunContext = {
      runId: 'e2e-http-run',
      mode: 'full-access',
      signal: signal ?? new AbortController().signal,
    };
    return this.pipeline.call(tool, args, run);
  }

  toolNames(server: string): string[] {
    return this.registry
      .list()
      .filter((t) => t.source.kind === 'mcp' && t.source.id === server)
      .map((t) => t.name)
      .sort();
  }

  async close(): Promise<void> {
    await this.scope.close().catch(() => {});
    await Promise.all(this.mounted.map((m) => m.close().catch(() => {})));
  }
}
