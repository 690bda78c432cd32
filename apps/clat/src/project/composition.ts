/**
 * What this build of `clat` composes: server connectors per transport, native host tools and the
 * server sources besides mcp.json (installed packages, the GLM pack). A custom distribution
 * passes its own Composition.
 * @module
 */
import type { ConfigIssue, McpServerConfig, Tool } from '@clat/kernel';
import { createNativeTools } from '@clat/native-tools';
import type { ClatHome } from '../config/clat-home.js';
import type { UserConfig } from '../config/user-config.js';
import { createMcpConnector } from './mcp-connector.js';
import type { NativeToolContext } from './project-session.js';
import type { ServerConnector } from './server-connector.js';

export interface ServerSourceContext {
  home: ClatHome;
  env: NodeJS.ProcessEnv;
  user: UserConfig;
}

export interface Composition {
  connectors(context: { env: NodeJS.ProcessEnv }): readonly ServerConnector[];
  nativeTools(context: NativeToolContext): readonly Tool[];
  /** Servers besides mcp.json; a same-named mcp.json entry wins over them. */
  extraServers(
    context: ServerSourceContext,
  ): Promise<{ servers: McpServerConfig[]; issues: ConfigIssue[] }>;
}

/** The adapters wired into this build of `clat`. */
export function defaultComposition(): Composition {
  return {
    connectors: () => [createMcpConnector()],
    nativeTools: (context) =>
      createNativeTools({
        projectRoot: context.projectRoot,
        asker: (ctx) => context.askerFor(ctx.runId),
        allowAbsoluteWrites: (ctx) => context.modeFor(ctx.runId) === 'full-access',
      }),
    extraServers: async () => ({ servers: [], issues: [] }),
  };
}
