/**
 * Crash consistency of the plugin store: a real installer child process is SIGKILLed at random
 * points while it updates, rolls back, disables and enables a package. After every kill,
 * registry.json must parse and hold exactly the activation from before or after the operation in
 * flight, never a mix; a package still in the registry always has intact bytes (uninstall drops
 * the pointer first); the next store operation must recover (stale lease, staging, orphans).
 * Each version has its own value of a sensitive setting: an activation always reads its own
 * version's (never the value an interrupted update was writing), and once recovered no secrets
 * file is left that no activation reads.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PluginStore, parseRegistry, SECRETS_DIR } from '@clat/packaging';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const CHILD = fileURLToPath(new URL('./fixtures/installer-child.mjs', import.meta.url));
const ITERATIONS = 40;

interface State {
  active: string;
  rollback: string | null;
  enabled: boolean;
}

/** The sensitive setting each version is given (installer-child.mjs gives the same). */
const A = { token: 'secret-1.0.0' };
const B = { token: 'secret-2.0.0' };

/**
 * The token each activation of the package reads (`version=token`), and the secrets files no
 * activation reads.
 */
async function readSecretsState(): Promise<{ read: string[]; unread: string[] }> {
  const registry = parseRegistry(store.registryFile, await readFile(store.registryFile, 'utf8'));
  const record = registry.packages.crashy;
  const dir = join(home, SECRETS_DIR);
  const files = await readdir(dir).catch(() => [] as string[]);
  const read: string[] = [];
  const names = new Set<string>();
  for (const activation of [record?.active, record?.rollback]) {
    if (activation === undefined || record === undefined) continue;
    const name = `crashy.${activation.secrets}.json`;
    names.add(name);
    const { token } = JSON.parse(await readFile(join(dir, name), 'utf8')) as { token: string };
    read.push(`${record.artifacts[activation.artifact]?.manifest.version}=${token}`);
  }
  return { read, unread: files.filter((name) => !names.has(name)) };
}

let work: string;
let home: string;
let store: PluginStore;
const children = new Set<ChildProcess>();

/** A package with enough files that a copy spans many syscalls (and many kill points). */
async function writePackage(dir: string, version: string): Promise<void> {
  const entry = `#!/usr/bin/env node\nconsole.log('crashy ${version}');\n`;
  await mkdir(join(dir, 'bin'), { recursive: true });
  await writeFile(join(dir, 'bin', 'run.mjs'), entry);
  await chmod(join(dir, 'bin', 'run.mjs'), 0o755);
  await mkdir(join(dir, 'data'), { recursive: true });
  for (let i = 0; i < 24; i++) {
    await writeFile(join(dir, 'data', `chunk-${i}.txt`), `${version}:${i}:`.padEnd(8192, 'x'));
  }
  const manifest = {
    manifestVersion: 1,
    id: 'crashy',
    name: 'Crashy',
    version,
    runtime: {
      kind: 'mcp-stdio',
      entry: 'bin/run.mjs',
      sha256: createHash('sha256').update(entry).digest('hex'),
    },
    capabilities: { tools: true },
    userConfig: { token: { type: 'string', title: 'Token', sensitive: true, required: true } },
  };
  await writeFile(join(dir, 'clat-plugin.json'), JSON.stringify(manifest));
}

/** The package's activation on disk, or null when it is not installed. */
async function readState(): Promise<State | null> {
  const registry = parseRegistry(store.registryFile, await readFile(store.registryFile, 'utf8'));
  const record = registry.packages.crashy;
  if (record === undefined) return null;
  return {
    active: record.active.artifact,
    rollback: record.rollback?.artifact ?? null,
    enabled: record.enabled,
  };
}

/**
 * The state after `op` on `state`, mirroring the store's documented semantics; an operation
 * that must fail (e.g. update while uninstalled) leaves the state unchanged.
 */
function apply(state: State | null, op: string, shas: Record<string, string>): State | null {
  if (op === 'install:A') {
    return state === null ? { active: shas.A as string, rollback: null, enabled: true } : state;
  }
  if (state === null) return null;
  if (op === 'uninstall') return null;
  if (op.startsWith('update:')) {
    const next = shas[op.slice('update:'.length)] as string;
    if (next === state.active) return state;
    return { ...state, active: next, rollback: state.active };
  }
  if (op === 'rollback') {
    if (state.rollback === null) return state;
    return { ...state, active: state.rollback, rollback: state.active };
  }
  return { ...state, enabled: op === 'enable' };
}

interface Line {
  begin?: number;
  op?: string;
  done?: number;
  failed?: number;
}

/**
 * Spawns the installer and SIGKILLs it `delayMs` after its first operation began (child start-up
 * takes a variable time on a loaded machine), or `delayMs` after spawn when `fromSpawn`.
 */
function runAndKill(
  delayMs: number,
  fromSpawn: boolean,
  dirA: string,
  dirB: string,
): Promise<Line[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, home, dirA, dirB], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let out = '';
    let err = '';
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      timer ??= setTimeout(() => child.kill('SIGKILL'), delayMs);
    };
    if (fromSpawn) arm();
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      arm();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      if (signal !== 'SIGKILL') {
        reject(new Error(`installer exited on its own (${code}): ${err}`));
        return;
      }
      const lines = out
        .split('\n')
        .filter((line) => line.trim() !== '')
        .flatMap((line) => {
          try {
            return [JSON.parse(line) as Line];
          } catch {
            return []; // a line cut by the kill
          }
        });
      resolve(lines);
    });
  });
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'clat-crash-'));
  home = join(work, 'home');
  store = new PluginStore({ clatHome: home });
});
afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
});
afterAll(async () => {
  const { execFileSync } = await import('node:child_process');
  execFileSync('chmod', ['-R', 'u+rwX', work]);
  await rm(work, { recursive: true, force: true });
});

describe('plugin store crash consistency', () => {
  it(`registry.json is always the old or the new activation across ${ITERATIONS} SIGKILLs`, async () => {
    const dirA = join(work, 'a');
    const dirB = join(work, 'b');
    await writePackage(dirA, '1.0.0');
    await writePackage(dirB, '2.0.0');
    const a = await store.install(dirA, { acceptCapabilities: true, configValues: A });
    const b = await store.update(dirB, { configValues: B });
    const shas = { A: a.treeSha256, B: b.treeSha256 };

    let killsMidOperation = 0;
    let uninstalledSeen = 0;
    let operationsCompleted = 0;
    for (let iteration = 0; iteration < ITERATIONS; iteration++) {
      let state = await readState();
      // Mostly kill inside the operation loop; every eighth run dies during start-up instead.
      const fromSpawn = iteration % 8 === 7;
      const delay = Math.floor(Math.random() * (fromSpawn ? 300 : 700));
      const lines = await runAndKill(delay, fromSpawn, dirA, dirB);

      let inFlight: string | undefined;
      for (const line of lines) {
        if (line.begin !== undefined) inFlight = line.op;
        else if (line.done !== undefined && inFlight !== undefined) {
          state = apply(state, inFlight, shas);
          inFlight = undefined;
          operationsCompleted++;
        } else if (line.failed !== undefined) inFlight = undefined;
      }
      const allowed = [state];
      if (inFlight !== undefined) {
        killsMidOperation++;
        allowed.push(apply(state, inFlight, shas));
      }
      const onDisk = await readState();
      expect(
        allowed,
        `iteration ${iteration}, killed during ${inFlight ?? 'no operation'}`,
      ).toContainEqual(onDisk);

      // Before any recovery: whatever the registry points to is intact on disk, and each
      // activation reads its own version's token.
      if (onDisk !== null) expect((await store.list())[0]?.health).toBe('ok');
      for (const pair of (await readSecretsState()).read) {
        expect(['1.0.0=secret-1.0.0', '2.0.0=secret-2.0.0'], `iteration ${iteration}`).toContain(
          pair,
        );
      }

      // The next operation reclaims the dead installer's lease and cleans up after it. Killed
      // after uninstall's pointer write, the bytes may linger until then; never the reverse.
      if (onDisk === null) {
        await store.install(dirA, { acceptCapabilities: true, configValues: A });
        await store.uninstall('crashy');
        expect(await readdir(join(store.root, 'artifacts'))).toEqual([]);
        expect(await readdir(join(home, SECRETS_DIR))).toEqual([]);
        uninstalledSeen++;
        await store.install(dirA, { acceptCapabilities: true, configValues: A });
      } else {
        await store.disable('crashy');
        await store.enable('crashy');
        const kept = [onDisk.active, onDisk.rollback].filter((sha) => sha !== null).sort();
        expect((await readdir(join(store.root, 'artifacts', 'crashy'))).sort()).toEqual(kept);
      }
      expect(await readdir(join(store.root, 'staging'))).toEqual([]);
      expect((await readdir(store.root)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
      // Recovered: no secrets file is left that no activation reads (nor a temporary one).
      expect((await readSecretsState()).unread).toEqual([]);
      const [row] = await store.list();
      expect(row?.health).toBe('ok');
    }
    if (process.env.CLAT_CRASH_STATS === '1') {
      process.stderr.write(
        `crash stats: ${JSON.stringify({ killsMidOperation, operationsCompleted, uninstalledSeen })}\n`,
      );
    }
    // The kills really landed inside operations, not only before or after the loop.
    expect(killsMidOperation).toBeGreaterThan(0);
    expect(operationsCompleted).toBeGreaterThan(0);
  }, 180_000);
});
