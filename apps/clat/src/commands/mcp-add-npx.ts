/**
 * After `clat mcp add … -- npx -y <package>`: the package is installed into npx's cache now,
 * while the person waits for the command anyway, so the server's first start runs from the cache.
 * Otherwise that start downloads it inside the handshake (10 s) and is stopped before npm
 * finishes, and the server never connects until someone installs it by hand. On a terminal the
 * install runs (Ctrl-C skips it; the entry is saved either way); without one, nothing is fetched
 * and a note gives the command.
 * @module
 */
import { stat } from 'node:fs/promises';
import { expandServerVariables, type McpServerConfig } from '@clat/adapter-mcp';
import { redactSecrets, sanitizeTerminalLine } from '@clat/kernel';
import type { CommandIO } from '../command.js';
import { isTty } from '../ui/line-prompt.js';
import type { EditTarget } from './mcp-scope.js';

/** npm's lines shown with a failure: its errors, else its last lines. */
const SHOWN_LINES = 3;

/** The environment the server will start with: CLAT's, with the entry's `env` expanded. */
function serverEnv(
  server: McpServerConfig & { transport: 'stdio' },
  target: NpxTarget,
  io: CommandIO,
): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...io.env };
  const expanded = expandServerVariables(server, {
    file: target.file,
    env: io.env,
    projectRoot: target.root ?? io.cwd,
  });
  // A reference that does not expand here leaves the entry's literal values only: the server
  // will not start until it does, and npm needs none of them to install.
  const entryEnv =
    'server' in expanded && expanded.server.transport === 'stdio'
      ? expanded.server.env
      : Object.fromEntries(
          Object.entries(server.env ?? {}).filter(([, value]) => !value.includes('${')),
        );
  for (const [name, value] of Object.entries(entryEnv ?? {})) env[name] = value;
  return env;
}

/** npm's output for a person: its error lines (else its last ones), redacted and sanitised. */
function npmLines(output: readonly string[]): string {
  const errors = output.filter((line) => /^npm (error|ERR!)/.test(line));
  const shown = (errors.length > 0 ? errors : output).slice(0, SHOWN_LINES);
  return shown.map((line) => sanitizeTerminalLine(redactSecrets(line.trim()))).join(' | ');
}

/** Where the entry was written: its file, the CLAT home (servers' default cwd), its project. */
type NpxTarget = Pick<EditTarget, 'file' | 'home' | 'root'>;

/**
 * Installs the packages of a just-added `npx` stdio entry (see the module); does nothing for any
 * other entry. Never fails the add: the entry is written before this runs. `cancelled` when the
 * person pressed Ctrl-C (an import of several stops offering the rest).
 */
export async function installNpxServer(
  server: McpServerConfig,
  target: NpxTarget,
  io: CommandIO,
): Promise<'cancelled' | undefined> {
  if (server.transport !== 'stdio') return undefined;
  // Loaded only here, at the add of a stdio entry: no other command needs it.
  const { installNpxPackages, npxInstall, npxInstallCommand, resolveServerCwd } = await import(
    '@clat/adapter-mcp-stdio/npx'
  );
  const install = npxInstall(server.command, server.args ?? []);
  // A package named by a reference is only known at the server's start.
  if (install === undefined || install.packages.some((spec) => spec.includes('${'))) {
    return undefined;
  }
  const names = sanitizeTerminalLine(install.packages.join(', '));
  const line = sanitizeTerminalLine(npxInstallCommand(install));
  if (!isTty(io.stdin) || !isTty(io.stdout)) {
    io.stdout.write(
      `Note: npx downloads ${names} at the server's first start, which often takes longer than the handshake allows (10 s); install it once now with "${line}", so that start runs from npx's cache\n`,
    );
    return undefined;
  }
  let cwd: string;
  try {
    cwd = resolveServerCwd(server.cwd, target.home.dir);
    if (!(await stat(cwd)).isDirectory()) return undefined;
  } catch {
    // A cwd the server cannot use fails its start with its own message; npm would only blur it.
    return undefined;
  }
  io.stdout.write(
    `Installing ${names} into npx's cache, so the server's first start does not wait for the download (Ctrl-C skips it; the entry is saved)…\n`,
  );
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.on('SIGINT', onSigint);
  try {
    const result = await installNpxPackages(install, {
      command: server.command,
      cwd,
      env: serverEnv(server, target, io),
      signal: controller.signal,
    });
    if (result.outcome === 'installed') {
      io.stdout.write(
        `Installed ${names} in ${(result.ms / 1000).toFixed(1)} s; the server starts from npx's cache\n`,
      );
    } else if (result.outcome === 'cancelled') {
      io.stdout.write(
        `Skipped the install; before the server's first start, install it with "${line}"\n`,
      );
      return 'cancelled';
    } else {
      const said = npmLines(result.output);
      io.stdout.write(
        `Could not install ${names}: ${result.reason}${said === '' ? '' : ` (${said})`}; the entry is saved: check the package name, then install it with "${line}" before the server's first start\n`,
      );
    }
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
  return undefined;
}
