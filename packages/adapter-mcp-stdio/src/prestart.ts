/**
 * Prestarted stdio servers. A command that knows, before its heavier modules load, which stdio
 * servers it will connect may spawn them at once, so each server's own start-up overlaps the
 * host's. The transport then adopts that process (the same spawn, cwd and tag) instead of
 * spawning one; a process nobody adopts is torn down on close with the transport's escalation.
 * This module stays light (no MCP or kernel code): the teardown path loads the transport lazily.
 * @module
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { trackGroup, untrackGroup } from '@clat/process';
import { prepareServerCwd } from './server-cwd.js';
import { type ServerSpawn, spawnServerProcess } from './spawn-server.js';

/** What a stdio server is started from: its configured launch and the default working directory. */
export interface PrestartSpec extends ServerSpawn {
  name: string;
  cwd?: string | undefined;
  defaultCwd: string;
}

/** A prestarted process that spawned, with the working directory it runs in. */
export interface PrestartedProcess {
  child: ChildProcessWithoutNullStreams;
  cwd: string;
  /** Lets go of stdout and stderr: the adopting transport reads them from here on. */
  release(): void;
}

function sameArgs(a: readonly string[] = [], b: readonly string[] = []): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

function sameEnv(
  a: Readonly<Record<string, string>> = {},
  b: Readonly<Record<string, string>> = {},
): boolean {
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every((key) => Object.hasOwn(b, key) && a[key] === b[key])
  );
}

/** Prestarts so far in this process: part of each tag. */
let prestartCount = 0;

/**
 * A process tag unique to this spawn: this host's pid (unique among running processes), the
 * time, a counter and 64 random bits. Not node:crypto: a prestart runs first, and loading that
 * module (about 3 ms) would delay the very spawn a prestart exists to bring forward. The tag is
 * no secret (the server sees it in its environment); the detached sweep needs it to be unique.
 */
function prestartTag(): string {
  prestartCount += 1;
  const random = () => Math.floor(Math.random() * 2 ** 32).toString(16);
  return `${process.pid}-${Date.now().toString(36)}-${prestartCount}-${random()}${random()}`;
}

/** One server spawned ahead of its transport. */
export class PrestartedServer {
  readonly spec: PrestartSpec;
  /** The process tag the transport's detached-daemon sweep looks for. */
  readonly tag = prestartTag();
  /**
   * The running process, or undefined when its cwd or spawn failed: the transport then spawns
   * the server itself and reports that failure exactly as without a prestart.
   */
  readonly ready: Promise<PrestartedProcess | undefined>;

  constructor(spec: PrestartSpec) {
    this.spec = spec;
    this.ready = this.#start();
  }

  /** True when `server` (as the full configuration resolved it) launches exactly this process. */
  matches(server: Omit<PrestartSpec, 'defaultCwd'>, defaultCwd: string): boolean {
    const spec = this.spec;
    return (
      server.name === spec.name &&
      server.command === spec.command &&
      server.cwd === spec.cwd &&
      defaultCwd === spec.defaultCwd &&
      sameArgs(server.args, spec.args) &&
      sameEnv(server.env, spec.env)
    );
  }

  async #start(): Promise<PrestartedProcess | undefined> {
    let cwd: string;
    let child: ChildProcessWithoutNullStreams;
    try {
      cwd = await prepareServerCwd(this.spec.cwd, this.spec.defaultCwd);
      child = spawnServerProcess(this.spec, cwd, this.tag);
    } catch {
      return undefined;
    }
    // Until the transport adopts it, a broken pipe must not become an uncaught 'error'; the
    // transport's own listeners report what happens after adoption, its exit path the rest.
    const ignore = () => undefined;
    child.stdin.on('error', ignore);
    child.stdout.on('error', ignore);
    child.stderr.on('error', ignore);
    // Hold stdout and stderr unread until adoption: a 'readable' listener keeps what the server
    // writes (its stderr tail above all) in the streams, where Node's exit handling would
    // otherwise drain and drop the output of a process that exits before anyone listens.
    const hold = () => undefined;
    child.stdout.on('readable', hold);
    child.stderr.on('readable', hold);
    const release = () => {
      child.stdout.off('readable', hold);
      child.stderr.off('readable', hold);
      // The adopting transport tracks the group from here on, possibly in another copy of
      // @clat/process (the clat bin prestarts from its own CommonJS bundle): one owner.
      untrackGroup(child.pid as number);
    };
    const spawned = await new Promise<boolean>((resolveSpawn) => {
      child.once('error', () => resolveSpawn(false));
      child.once('spawn', () => resolveSpawn(true));
    });
    if (!spawned) return undefined;
    child.on('error', ignore);
    // Tracked at once: should this process exit before anyone adopts it, the group still dies.
    trackGroup(child.pid as number);
    return { child, cwd, release };
  }
}

/** Servers spawned ahead of their transports, each adopted at most once, the rest closed. */
export class PrestartedServers {
  readonly #waiting = new Map<string, PrestartedServer>();
  readonly #disposals: Promise<void>[] = [];
  #closed = false;

  /** Spawns the server `spec` describes now; a second spec of the same name is ignored. */
  start(spec: PrestartSpec): void {
    if (this.#closed || this.#waiting.has(spec.name)) return;
    this.#waiting.set(spec.name, new PrestartedServer(spec));
  }

  /** Settles once every server started so far has spawned (or failed to). */
  async spawned(): Promise<void> {
    await Promise.all([...this.#waiting.values()].map((prestarted) => prestarted.ready));
  }

  /** Names of the servers spawned and not yet claimed. */
  waiting(): string[] {
    return [...this.#waiting.keys()];
  }

  /**
   * The prestarted process of `server`, taken out of this set, when it launches exactly what
   * `server` configures; a prestart that no longer matches is torn down and undefined returned.
   */
  claim(
    server: Omit<PrestartSpec, 'defaultCwd'>,
    defaultCwd: string,
  ): PrestartedServer | undefined {
    const prestarted = this.#waiting.get(server.name);
    if (prestarted === undefined) return undefined;
    this.#waiting.delete(server.name);
    if (prestarted.matches(server, defaultCwd)) return prestarted;
    this.#disposals.push(disposePrestarted(prestarted));
    return undefined;
  }

  /** Tears down every prestarted process nobody claimed; later claims find nothing. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const prestarted of this.#waiting.values()) {
      this.#disposals.push(disposePrestarted(prestarted));
    }
    this.#waiting.clear();
    await Promise.all(this.#disposals);
  }
}

/** Stops an unclaimed prestart through the transport's own teardown (stdin, grace, group kill). */
async function disposePrestarted(prestarted: PrestartedServer): Promise<void> {
  if ((await prestarted.ready) === undefined) return;
  const { StdioTransport } = await import('./stdio-transport.js');
  const { spec } = prestarted;
  const transport = new StdioTransport({
    name: spec.name,
    command: spec.command,
    args: spec.args,
    env: spec.env,
    cwd: spec.cwd,
    defaultCwd: spec.defaultCwd,
    prestarted,
  });
  await transport.start().catch(() => undefined);
  await transport.close();
}
