/**
 * The whole distribution: the kernel host, the MCP connector over stdio and Streamable HTTP, and
 * the native host tools. No WASM, no packaging, no provider packs, no `@clat/cli`.
 * @module
 */
import { readFile, realpath } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import {
  createMcpConnector,
  expandServerVariables,
  mcpEntry,
  parseMcpConfig,
} from '@clat/adapter-mcp';
import { httpTransport } from '@clat/adapter-mcp-http';
import { stdioTransport } from '@clat/adapter-mcp-stdio';
import { createHost, type Host, type MountEntry } from '@clat/kernel';
import { createNativeTools } from '@clat/native-tools';

export interface ComposeOptions {
  /** An mcp.json-shaped file (`{ "mcpServers": { … } }`). */
  configFile: string;
  /** The project the native tools may touch (resolved to its real path). */
  projectRoot: string;
  /** What `${VAR}` in the config reads (the process environment in the bin). */
  env: NodeJS.ProcessEnv;
}

/**
 * Reads the config and composes a host; config problems come back as one line each. As in
 * `clat`: a `disabled` entry is left out, and `${VAR}` references are expanded here, at mount.
 */
export async function compose(options: ComposeOptions): Promise<{ host: Host; issues: string[] }> {
  const configFile = resolve(options.configFile);
  const projectRoot = await realpath(options.projectRoot);
  const parsed = parseMcpConfig(configFile, await readFile(configFile, 'utf8'));
  const problems = [...parsed.issues];
  const entries: MountEntry[] = [];
  for (const server of parsed.servers) {
    if (server.disabled === true) continue;
    const expanded = expandServerVariables(server, {
      file: configFile,
      env: options.env,
      projectRoot,
    });
    if ('server' in expanded) entries.push(mcpEntry(expanded.server));
    else problems.push(...expanded.issues);
  }
  const host = createHost({
    projectRoot,
    entries,
    connectors: [
      createMcpConnector({
        // Servers without a cwd run next to the config file, never in the project.
        transports: [stdioTransport({ defaultCwd: dirname(configFile) }), httpTransport()],
        clientInfo: { name: 'clat-mcp-only', version: '0.0.0' },
      }),
    ],
    nativeTools: createNativeTools({ projectRoot }),
    name: 'clat-mcp-only',
    // A distribution's messages name it: "restart clat-mcp-only to use the new list".
    displayName: 'clat-mcp-only',
  });
  const issues = problems.map((i) => `${i.file}: ${i.path}: ${i.message}`);
  return { host, issues };
}
