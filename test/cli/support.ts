/**
 * Harness of the CLI end-to-end tests: the real built `clat` binary as a spawned process, a
 * temporary CLAT_HOME and project per test, real MCP servers, and a leak check that finds any
 * server process that outlived its `clat`.
 * @module
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach, expect } from 'vitest';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLAT_BIN = join(REPO_ROOT, 'apps/clat/bin/clat.js');
export const NOTES_SERVER = join(REPO_ROOT, 'plugins/mcp-notes/dist/package/server.mjs');
export const EVERYTHING_SERVER = join(
  REPO_ROOT,
  'test/node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);
export const STDIO_FIXTURES = join(REPO_ROOT, 'test/fixtures/mcp-servers');
export const CLI_FIXTURES = join(REPO_ROOT, 'test/cli/fixtures');
/** The wasm-summarize example plugin: its manifest and its built component. */
export const WASM_MANIFEST = join(REPO_ROOT, 'plugins/wasm-summarize/clat-plugin.json');
export const WASM_COMPONENT = join(REPO_ROOT, 'plugins/wasm-summarize/dist/plugin.wasm');

/** Fails fast with a clear message when the build this suite drives is missing. */
/**
 * Process tags of the servers a spawn log (`CLAT_FIXTURE_SPAWN_LOG`) recorded, in spawn order.
 * A prestart's tag is pid-time-count-random ({@link PRESTART_TAG}); the transport's a UUID.
 */
export async function spawnedTags(spawnLog: string): Promise<string[]> {
  return (await readFile(spawnLog, 'utf8'))
    .split('\n')
    .filter((line) => line.includes('spawn'))
    .map((line) => /tag=(\S*)/.exec(line)?.[1] ?? '');
}
export const PRESTART_TAG = /^\d+-[0-9a-z]+-\d+-[0-9a-f]+$/;

/** Asserts that every text occurs in `out`, in the given order. */
export function expectInOrder(out: string, texts: readonly string[]): void {
  const at = texts.map((text) => out.indexOf(text));
  expect(
    texts.filter((_, index) => (at[index] as number) < 0),
    out,
  ).toEqual([]);
  expect(
    [...at].sort((a, b) => a - b),
    out,
  ).toEqual(at);
}

export function assertBuilt(): void {
  for (const file of [join(REPO_ROOT, 'apps/clat/dist/main.js'), NOTES_SERVER]) {
    if (!existsSync(file))
      throw new Error(`${file} is missing; run "pnpm build" before the e2e tests`);
  }
}

export interface ClatResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A temporary CLAT_HOME and project directory, plus a marker that tags every server we start. */
export class CliSandbox {
  readonly marker = `clat-e2e-${randomBytes(6).toString('hex')}`;
  root = '';
  home = '';
  project = '';
  readonly #children = new Set<ChildProcess>();

  async setup(): Promise<void> {
    this.root = await realpath(await mkdtemp(join(tmpdir(), 'clat-cli-e2e-')));
    this.home = join(this.root, 'home');
    this.project = join(this.root, 'project');
    await mkdir(this.home, { recursive: true });
    await mkdir(this.project, { recursive: true });
    await writeFile(join(this.project, 'README.md'), '# e2e project\n');
  }

  /** Node running `script`; the marker argument lets the leak check find the process. */
  node(script: string, ...args: string[]): { command: string; args: string[] } {
    return { command: process.execPath, args: [script, ...args, `--${this.marker}`] };
  }

  notesServer(): Record<string, unknown> {
    return { ...this.node(NOTES_SERVER), env: { MCP_NOTES_DIR: join(this.root, 'notes') } };
  }

  async writeMcp(config: unknown): Promise<void> {
    await writeFile(join(this.home, 'mcp.json'), `${JSON.stringify(config, null, 2)}\n`);
  }

  async readMcp(): Promise<unknown> {
    return JSON.parse(await readFile(join(this.home, 'mcp.json'), 'utf8'));
  }

  async writeConfig(config: unknown): Promise<void> {
    await writeFile(join(this.home, 'config.json'), `${JSON.stringify(config, null, 2)}\n`);
  }

  env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    return { ...process.env, CLAT_HOME: this.home, NO_COLOR: '1', ...extra };
  }

  /**
   * Runs `clat` to completion with non-TTY stdin (`input` piped, else none), killing it after
   * `timeoutMs` as a hang guard. `nodeArgs` go to Node before the binary (V8 tracing flags).
   */
  run(
    args: string[],
    options: {
      cwd?: string;
      env?: Record<string, string>;
      timeoutMs?: number;
      input?: string;
      nodeArgs?: string[];
    } = {},
  ): Promise<ClatResult> {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), CLAT_BIN, ...args], {
      cwd: options.cwd ?? this.project,
      env: this.env(options.env),
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
    if (child.stdout === null || child.stderr === null) throw new Error('clat has no output pipes');
    this.#children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 45_000);
    return new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        this.#children.delete(child);
        resolve({ code, signal, stdout, stderr });
      });
    });
  }

  /** Pids of processes whose command line carries `tag` (default: this sandbox's marker). */
  survivors(tag: string = this.marker): number[] {
    const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
    return out
      .split('\n')
      .filter((line) => line.includes(tag))
      .map((line) => Number.parseInt(line.trim(), 10))
      .filter((pid) => Number.isInteger(pid) && pid !== process.pid);
  }

  async cleanup(): Promise<void> {
    for (const child of this.#children) child.kill('SIGKILL');
    for (const pid of this.survivors()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    if (this.root !== '') await rm(this.root, { recursive: true, force: true });
  }
}

/**
 * The arguments of the `clat mcp add … --header "Authorization: Bearer <token>" --force` that the
 * status of a 401 server without OAuth metadata names, with `token` in place of `<token>`.
 */
export function staticTokenArgs(name: string, url: string, token: string): string[] {
  return [
    'mcp',
    'add',
    name,
    '--url',
    url,
    '--header',
    `Authorization: Bearer ${token}`,
    '--force',
  ];
}

/**
 * The arguments of a `clat …` command a message shows, split the way a POSIX shell splits what
 * a person pastes (`sh` itself does it: quotes, escapes and `$` exactly as a shell reads them).
 */
export function shownCommandArgs(command: string): string[] {
  const words = execFileSync('sh', ['-c', `printf '%s\\0' ${command}`], { encoding: 'utf8' })
    .split('\0')
    .slice(0, -1);
  expect(words[0], `"${command}" is not a clat command`).toBe('clat');
  return words.slice(1);
}

/** The JSON a `--json` command printed, or a failure that shows what it printed instead. */
export function parseJsonOutput<T>(result: ClatResult): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`expected JSON on stdout; got:\n${result.stdout}\nstderr:\n${result.stderr}`);
  }
}

/** What {@link useCliSandbox} does after each test besides its checks. */
export interface CliSandboxHooks {
  /** Runs after each test, before the survivor check (close a chat server, kill a tmux session). */
  teardown?: () => unknown;
  /**
   * How long processes may take to exit after `teardown` (a killed tmux session's `clat` gets
   * SIGHUP and exits on its own time); 0 checks at once.
   */
  settleMs?: number;
}

/**
 * The sandbox of every test in the calling file: asserts the CLI is built, sets up a fresh
 * sandbox (then runs `prepare`) before each test, and after each runs `teardown`, checks that no
 * process the test started survived, and cleans up even when that check fails.
 */
export function useCliSandbox(
  prepare?: () => Promise<void>,
  hooks: CliSandboxHooks = {},
): CliSandbox {
  const sandbox = new CliSandbox();
  beforeAll(assertBuilt);
  beforeEach(async () => {
    await sandbox.setup();
    await prepare?.();
  });
  afterEach(async () => {
    try {
      await hooks.teardown?.();
      const settleBy = Date.now() + (hooks.settleMs ?? 0);
      while (sandbox.survivors().length > 0 && Date.now() < settleBy) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(sandbox.survivors()).toEqual([]);
    } finally {
      await sandbox.cleanup();
    }
  });
  return sandbox;
}
