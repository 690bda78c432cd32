/** Shared by `clat prompts` and `clat resources`: which servers could not be asked. @module */
import { type PluginMount, sanitizeTerminalLine } from '@clat/kernel';
import type { CommandIO } from '../command.js';

/** One stderr line per configured server that is not connected (failed, login, connecting). */
export function reportUnavailable(io: CommandIO, mount: PluginMount): void {
  for (const server of mount.summary().servers) {
    if (server.state === 'connected') continue;
    const name = sanitizeTerminalLine(JSON.stringify(server.name));
    const hint =
      server.state === 'needs-login'
        ? `needs login; run \`${sanitizeTerminalLine(server.login ?? 'clat mcp login')}\``
        : `is ${server.state}; run "clat mcp" for details`;
    io.stderr.write(`clat: server ${name} ${hint}\n`);
  }
}
