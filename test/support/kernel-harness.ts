/**
 * Kernel state shared by the MCP e2e harnesses (stdio, HTTP): registry, prompts, run events,
 * pipeline and a project scope, plus the servers mounted into them.
 * @module
 */
import type { MountedMcpServer } from '@clat/adapter-mcp';
import {
  createGlobalScope,
  PromptRegistry,
  type RunContext,
  RunEventStream,
  type Scope,
  ToolPipeline,
  ToolRegistry,
  type ToolResult,
} from '@clat/kernel';

export class KernelHarness {
  readonly registry = new ToolRegistry();
  readonly prompts = new PromptRegistry();
  readonly events = new RunEventStream();
  readonly pipeline = new ToolPipeline({ registry: this.registry, events: this.events });
  readonly scope: Scope = createGlobalScope('e2e').child('project');
  readonly mounted: MountedMcpServer[] = [];
  readonly diagnostics: string[] = [];

  readonly runId: string;

  constructor(runId = 'e2e-run') {
    this.runId = runId;
  }

  /** Calls a registered tool through the kernel pipeline in full-access mode. */
  call(
    tool: string,
    args: Record<string, unknown> = {},
    signal?: AbortSignal,
  ): Promise<ToolResult> {
    const run: RunContext = {
      runId: this.runId,
      mode: 'full-access',
      signal: signal ?? new AbortController().signal,
    };
    return this.pipeline.call(tool, args, run);
  }

  /** Registered names of one MCP server's tools, sorted. */
  toolNames(server: string): string[] {
    return this.registry
      .list()
      .filter((t) => t.source.kind === 'mcp' && t.source.id === server)
      .map((t) => t.name)
      .sort();
  }

  /** Revokes the scope's leases, then closes every mounted server. */
  async close(): Promise<void> {
    await this.scope.close().catch(() => {});
    await Promise.all(this.mounted.map((m) => m.close().catch(() => {})));
  }
}
