/**
 * Harness of the HTTP e2e tests: real HTTP servers mounted through the real transport, client
 * core, kernel registry, scope and tool pipeline; optionally the real PluginHostBridge behind
 * server requests (elicitation, sampling).
 * @module
 */
import { type McpTimeouts, type MountedMcpServer, mountMcpServer } from '@clat/adapter-mcp';
import { HttpTransportFactory } from '@clat/adapter-mcp-http';
import { PluginHostBridge, Redactor, type ToolResult, type UserAsker } from '@clat/kernel';
import { KernelHarness } from '../support/kernel-harness.js';

export class HttpHarness extends KernelHarness {
  readonly bridge = new PluginHostBridge({ projectRoot: process.cwd(), pipeline: this.pipeline });
  #runs = 0;

  constructor() {
    super('e2e-http-run');
  }

  async mount(
    name: string,
    url: string,
    options: {
      headers?: Record<string, string>;
      timeouts?: Partial<McpTimeouts>;
      /** Serve elicitation and sampling through the real PluginHostBridge. */
      withHost?: boolean;
    } = {},
  ): Promise<MountedMcpServer> {
    // The harness stands in for the host: it owns redaction of what the mount reports.
    const redactor = new Redactor();
    redactor.addHeaders(options.headers);
    const mounted = await mountMcpServer({
      name,
      factory: HttpTransportFactory.fromConfig({ url, headers: options.headers }),
      registry: this.registry,
      prompts: this.prompts,
      scope: this.scope.pluginScope(name),
      projectRoot: process.cwd(),
      onDiagnostic: (message) => this.diagnostics.push(redactor.redact(message)),
      ...(options.timeouts === undefined ? {} : { timeouts: options.timeouts }),
      ...(options.withHost === true ? { hostServices: this.bridge } : {}),
    });
    this.mounted.push(mounted);
    return mounted;
  }

  /** Calls a tool inside a bridge run whose questions go to `asker` (full-access mode). */
  async callInRun(
    tool: string,
    args: Record<string, unknown>,
    asker: UserAsker,
  ): Promise<ToolResult> {
    const runId = `e2e-http-run-${++this.#runs}`;
    const signal = new AbortController().signal;
    this.bridge.beginRun({ runId, mode: 'full-access', signal, asker });
    try {
      return await this.pipeline.call(tool, args, { runId, mode: 'full-access', signal, asker });
    } finally {
      this.bridge.endRun();
    }
  }
}
