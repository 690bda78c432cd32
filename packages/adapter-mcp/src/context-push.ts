/**
 * Pushing the host's context to a server that negotiated host services
 * (`io.artec.clat/context/changed`), stdio-style peers only.
 * @module
 */
import { errorMessage, type HostServices } from '@clat/kernel';
import { quoted } from './client-diagnostics.js';
import type { RpcSession } from './rpc-session.js';

/** Subscribes the server to context changes; returns the unsubscribe (also run when the session closes). */
export function startContextPushes(
  server: string,
  session: RpcSession,
  host: HostServices,
  onDiagnostic: (message: string) => void,
): () => void {
  // Notifications are fire-and-forget: a slow server never blocks a CLAT run.
  const unsubscribe = host.subscribeContext({ kind: 'mcp', id: server }, (snapshot) => {
    if (session.closed) return;
    session
      .notify('io.artec.clat/context/changed', { context: snapshot })
      .catch((error: unknown) =>
        onDiagnostic(
          `could not push context to MCP server ${quoted(server)}: ${errorMessage(error)}`,
        ),
      );
  });
  session.onClose(() => unsubscribe());
  return unsubscribe;
}
