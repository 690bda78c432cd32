/**
 * The session's `/login`: `clat mcp login` run inside the session, then the server mounted again.
 * @module
 */
import { errorMessage } from '@clat/kernel';
import type { CommandIO } from '../command.js';
import type { OpenedProject } from '../project/open-project.js';

/** What `/login` uses of the session. */
export interface LoginContext {
  readonly io: CommandIO;
  readonly project: OpenedProject;
  /** The session's one output path (sanitised). */
  write(text: string): void;
  /** Makes `controller` what Esc and Ctrl-C abort (the login's wait); undefined ends that. */
  setWaiting(controller: AbortController | undefined): void;
}

/** How `/login` takes a server and, as `clat mcp login` does, the scopes to ask for. */
const LOGIN_USAGE = '/login <server> [--scopes a,b]';

/**
 * `/login`'s line: the server's name as typed, and the value of a `--scopes` word (the rest of
 * the line, commas or spaces between scopes; `--scopes=a,b` too) when there is one.
 */
export function loginWords(line: string): { name: string; scopes: string | undefined } {
  const flag = /(?:^|\s)--scopes(?:=|\s+|$)/.exec(line);
  if (flag === null) return { name: line.trim(), scopes: undefined };
  return {
    name: line.slice(0, flag.index).trim(),
    scopes: line.slice(flag.index + flag[0].length).trim(),
  };
}

/**
 * Runs `clat mcp login <name> [--scopes …]` in the session, then mounts the server again:
 * before the first run its tools join the session; after it, the registries stay frozen until
 * a restart. The rest of the line is the name, as typed (server names may hold spaces or start
 * with "-"), up to a `--scopes` word, whose value is the rest of the line.
 */
export async function sessionLogin(ctx: LoginContext, line: string): Promise<void> {
  const { name, scopes } = loginWords(line);
  if (name === '') {
    ctx.write(`usage: ${LOGIN_USAGE}\n`);
    return;
  }
  // Ctrl-C reaches the session, not the process: it cancels the login, not the session.
  const waiting = new AbortController();
  ctx.setWaiting(waiting);
  try {
    const { login } = await import('./mcp-login.js');
    const argv = scopes === undefined ? ['--', name] : ['--scopes', scopes, '--', name];
    await login(argv, ctx.io, ctx.project.session.projectRoot, waiting.signal);
  } catch (error) {
    ctx.write(`${errorMessage(error)}\n`);
    return;
  } finally {
    ctx.setWaiting(undefined);
  }
  const mount = ctx.project.session.mount;
  if (mount.frozen) {
    ctx.write('restart clat to mount its tools (the tool list froze at the first run)\n');
    return;
  }
  const status = await mount.remount(name);
  if (status === undefined) {
    // Logged in to an entry this session did not mount (added to mcp.json since it started).
    ctx.write('restart clat to mount its tools (this session did not start it)\n');
  } else if (status.state === 'connected') {
    ctx.write(`${name} connected: ${status.tools} tool${status.tools === 1 ? '' : 's'}\n`);
  } else {
    const why = status.failure === undefined ? '' : `: ${status.failure}`;
    ctx.write(`${name} is still not connected${why}; /mcp shows it\n`);
  }
}
