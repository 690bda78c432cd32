/**
 * The whole distribution: the kernel host, the MCP connector over stdio and Streamable HTTP, and
 * the native host tools. No WASM, no packaging, no provider packs, no `@clat/cli`.
 * @module
 */
import { readFile, realpath } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { createMcpConnector, mcpEntry } from '@clat/adapter-mcp';
import { httpTransport } from '@clat/adapter-mcp-http';
import { stdioTransport } from '@clat/adapter-mcp-stdio';
import { createHost, type Host, parseMcpConfig } from '@clat/kernel';
import { createNativeTools } from '@clat/native-tools';

export interface ComposeOptions {
  /** An mcp.json-shaped file (`{ "mcpServers": { … } }`). */
  configFile: string;
  /** The project the native tools may touch (resolved to its real path). */
  projectRoot: string;
}

/** Reads the config and composes a host; config problems come back as one line each. */
export async function compose(options: ComposeOptions): Promise<{ host: Host; issues: string[] }> {
  const configFile = resolve(options.configFile);
  const projectRoot = await realpath(options.projectRoot);
  const parsed = parseMcpConfig(configFile, await readFile(configFile, 'utf8'));
  const host = createHost({
    projectRoot,
    entries: parsed.servers.map(mcpEntry),
    connectors: [
      createMcpConnector({
        // Servers without a cwd run next to the config file, never in the project.
        transports: [stdioTransport({ defaultCwd: dirname(configFile) }), httpTransport()],
        clientInfo: { name: 'clat-mcp-only', version: '0.0.0' },
      }),
    ],
    nativeTools: createNativeTools({ projectRoot }),
    name: 'clat-mcp-only',
  });
  const issues = parsed.issues.map((i) => `${i.file}: ${i.path}: ${i.message}`);
  return { host, issues };
}
