/**
 * Harness of the HTTP e2e tests: real HTTP servers mounted through the real transport, client
 * core, kernel registry, scope and tool pipeline.
 * @module
 */
import { type McpTimeouts, type MountedMcpServer, mountMcpServer } from '@clat/adapter-mcp';
import { HttpTransportFactory } from '@clat/adapter-mcp-http';
import { Redactor } from '@clat/kernel';
import { KernelHarness } from '../support/kernel-harness.js';

export class HttpHarness extends KernelHarness {
  constructor() {
    super('e2e-http-run');
  }

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
}
