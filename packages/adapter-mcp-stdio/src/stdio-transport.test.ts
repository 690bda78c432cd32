import { mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type JsonRpcMessage, MCP_LIMITS } from '@clat/adapter-mcp';
import { LIMITS, Redactor } from '@clat/kernel';
import { groupMembers, pidAlive } from '@clat/process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isStdioTransportError, StdioTransportErrorCode } from './errors.js';
import { resolveServerCwd } from './server-cwd.js';
import type { StdoutChannel } from './server-output.js';
import type { StdioTransportOptions } from './stdio-options.js';
import { StdioTransport, WRITE_QUEUE_BYTES } from './stdio-transport.js';
import { StdioTransportFactory } from './stdio-transport-factory.js';

const PEER = fileURLToPath(new URL('./test-support/peer.mjs', import.meta.url));
const SHORT_GRACE = 300;
/** How `peer` reads stdout unless told: the framing and leaving tests run once for each. */
let channel: StdoutChannel = 'socket';

/** Makes the tests of the enclosing describe read stdout via `via`. */
function readStdoutVia(via: StdoutChannel): void {
  beforeAll(() => {
    channel = via;
  });
  afterAll(() => {
    channel = 'socket';
  });
}

let home: string;
const open: StdioTransport[] = [];

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'clat-stdio-'));
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

interface Harness {
  transport: StdioTransport;
  messages: JsonRpcMessage[];
  errors: Error[];
  closes: (Error | undefined)[];
  closed: Promise<Error | undefined>;
  next(predicate: (m: JsonRpcMessage) => boolean): Promise<JsonRpcMessage>;
}

function peer(mode: string, extra: Partial<StdioTransportOptions> = {}): Harness {
  const transport = new StdioTransport({
    name: `peer-${mode}`,
    command: process.execPath,
    args: [PEER, mode],
    defaultCwd: home,
    shutdownGraceMs: SHORT_GRACE,
    stdout: channel,
    ...extra,
  });
  open.push(transport);
  const messages: JsonRpcMessage[] = [];
  const errors: Error[] = [];
  const closes: (Error | undefined)[] = [];
  const waiters: {
    predicate: (m: JsonRpcMessage) => boolean;
    resolve: (m: JsonRpcMessage) => void;
  }[] = [];
  let resolveClosed: (error: Error | undefined) => void = () => {};
  const closed = new Promise<Error | undefined>((resolve) => {
    resolveClosed = resolve;
  });
  transport.onmessage = (message) => {
    messages.push(message);
    for (const waiter of [...waiters]) {
      if (waiter.predicate(message)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    }
  };
  transport.onerror = (error) => errors.push(error);
  transport.onclose = (error) => {
    closes.push(error);
    resolveClosed(error);
  };
  return {
    transport,
    messages,
    errors,
    closes,
    closed,
    next: (predicate) => {
      const seen = messages.find(predicate);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ predicate, resolve }));
    },
  };
}

const byId = (id: number | string) => (m: JsonRpcMessage) =>
  'id' in m && m.id === id && !('method' in m);
const byMethod = (method: string) => (m: JsonRpcMessage) => 'method' in m && m.method === method;

async function call(h: Harness, id: number, method: string, params: Record<string, unknown> = {}) {
  await h.transport.send({ jsonrpc: '2.0', id, method, params });
  const response = await h.next(byId(id));
  return (response as { result: Record<string, unknown> }).result;
}

describe('cwd and environment', () => {
  it('defaults cwd to defaultCwd, creating it, and resolves relative cwd under it', async () => {
    const fresh = join(home, 'fresh-home');
    const a = peer('echo', { defaultCwd: fresh });
    await a.transport.start();
    expect((await call(a, 1, 'cwd')).cwd).toBe(fresh);

    const b = peer('echo', { defaultCwd: fresh, cwd: 'mcp-work' });
    await b.transport.start();
    expect((await call(b, 1, 'cwd')).cwd).toBe(join(fresh, 'mcp-work'));
  });

  it('refuses a relative cwd that leaves defaultCwd by .. or through a symlink', async () => {
    const fresh = join(home, 'escape-home');
    const project = join(home, 'project');
    await mkdir(join(fresh), { recursive: true });
    await mkdir(project, { recursive: true });
    await symlink(project, join(fresh, 'link'));
    for (const cwd of ['../project', 'link', 'link/sub']) {
      const h = peer('echo', { defaultCwd: fresh, cwd });
      const error = await h.transport.start().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(isStdioTransportError(error) && error.code, cwd).toBe(
        StdioTransportErrorCode.STDIO_CWD_INVALID,
      );
      expect((error as Error).message, cwd).toMatch(
        /outside .*escape-home|leaves .*escape-home, its base directory/,
      );
    }
    // Nothing was created through the link.
    await expect(stat(join(project, 'sub'))).rejects.toThrow();
  });

  it('resolves cwd under defaultCwd and never from the project directory', () => {
    expect(resolveServerCwd(undefined, '/h')).toBe('/h');
    expect(resolveServerCwd('work', '/h')).toBe('/h/work');
    expect(resolveServerCwd('a/../b', '/h')).toBe('/h/b');
    expect(() => resolveServerCwd('../escape', '/h')).toThrow(/leaves \/h, its base directory/);
    expect(() => resolveServerCwd('a/../../p', '/h')).toThrow(/leaves \/h, its base directory/);
    expect(resolveServerCwd('/abs', '/h')).toBe('/abs');
    expect(resolveServerCwd(process.cwd(), '/h')).toBe(process.cwd());
  });

  it('rejects an absolute cwd that does not exist, naming it', async () => {
    const h = peer('echo', { cwd: '/nonexistent-clat/dir' });
    const error = await h.transport.start().catch((e: unknown) => e);
    expect(isStdioTransportError(error) && error.code).toBe(
      StdioTransportErrorCode.STDIO_CWD_INVALID,
    );
    expect(String(error)).toContain('/nonexistent-clat');
    // An installed package's removed directory says why it is gone instead.
    const gone = await peer('echo', { cwd: '/nonexistent-clat/dir', cwdGone: 'its files are gone' })
      .transport.start()
      .catch((e: unknown) => e);
    expect(String(gone)).toContain('its files are gone');
    expect(String(gone)).not.toContain('ENOENT');
  });

  it('rejects a cwd that is a file', async () => {
    const file = join(home, 'a-file');
    await writeFile(file, 'x');
    const error = await peer('echo', { cwd: file })
      .transport.start()
      .catch((e: unknown) => e);
    expect(isStdioTransportError(error) && error.code).toBe(
      StdioTransportErrorCode.STDIO_CWD_INVALID,
    );
  });

  it('rejects a default cwd that is a file or a link to one (mkdir alone settles it)', async () => {
    const file = join(home, 'default-file');
    await writeFile(file, 'x');
    await symlink(file, join(home, 'default-link'));
    for (const defaultCwd of [file, join(home, 'default-link')]) {
      const error = await peer('echo', { defaultCwd })
        .transport.start()
        .catch((e: unknown) => e);
      expect(isStdioTransportError(error) && error.code, defaultCwd).toBe(
        StdioTransportErrorCode.STDIO_CWD_INVALID,
      );
      expect((error as Error).message, defaultCwd).toContain(defaultCwd);
    }
  });

  it('merges env over the inherited environment', async () => {
    const h = peer('echo', { env: { CLAT_PEER_VALUE: 'configured' } });
    await h.transport.start();
    expect((await call(h, 1, 'env', { name: 'CLAT_PEER_VALUE' })).value).toBe('configured');
    expect((await call(h, 2, 'env', { name: 'PATH' })).value).toBe(process.env.PATH);
  });
});

describe('spawn failures', () => {
  it('names a command that does not exist, without calling onclose', async () => {
    const h = peer('echo', { command: 'clat-no-such-command-4711', args: [] });
    const error = await h.transport.start().catch((e: unknown) => e);
    expect(isStdioTransportError(error) && error.code).toBe(
      StdioTransportErrorCode.STDIO_SPAWN_FAILED,
    );
    expect((error as Error).message).toContain(
      '"clat-no-such-command-4711" was not found (ENOENT)',
    );
    expect(h.closes).toEqual([]);
    await h.transport.close();
  });

  it('resolves a bare command name through PATH', async () => {
    const h = peer('echo', { command: 'node' });
    await h.transport.start();
    expect((await call(h, 1, 'hello', { via: 'PATH' })).echo).toEqual({ via: 'PATH' });
  });

  it('reports a server that exits at once with its code and a redacted stderr line', async () => {
    const h = peer('exit');
    await h.transport.start();
    const error = await h.closed;
    expect(isStdioTransportError(error) && error.code).toBe(
      StdioTransportErrorCode.STDIO_PROCESS_EXITED,
    );
    expect(error?.message).toContain('exited with code 3');
    expect(error?.message).toContain('[REDACTED]');
    expect(error?.message).not.toContain('0123456789abcdef');
    const tail = h.transport.diagnostics().tail;
    expect(tail[0]).toBe('loading config');
    expect(tail.join('\n')).not.toContain('sk-live');
    expect(h.closes).toHaveLength(1);
  });
});

describe.each(['socket', 'pipe'] as const)('peer leaving (stdout read via %s)', (via) => {
  readStdoutVia(via);

  it('fails a server that closes stdout but keeps running, and kills it', async () => {
    const h = peer('close-stdout');
    await h.transport.start();
    const pid = h.transport.pid as number;
    const error = await h.closed;
    expect(isStdioTransportError(error) && error.code).toBe(
      StdioTransportErrorCode.STDIO_PROCESS_EXITED,
    );
    expect(error?.message).toContain('closed its stdout while still running');
    expect(pidAlive(pid)).toBe(false);
  });
});

describe.each(['socket', 'pipe'] as const)('framing (stdout read via %s)', (via) => {
  readStdoutVia(via);

  it('reads stdout the way it was asked to (a socket pair on Linux)', async () => {
    const h = peer('echo');
    await h.transport.start();
    expect((await call(h, 1, 'echo', { hello: 1 })).echo).toEqual({ hello: 1 });
    const expected = via === 'socket' && process.platform !== 'linux' ? 'pipe' : via;
    expect(h.transport.diagnostics().detail?.stdout).toBe(expected);
  });

  it('keeps two servers apart when their big frames arrive at once', async () => {
    // Socket reads of every server land in one shared buffer: frames spanning reads must be
    // copied out whole before the next read of either server.
    const a = peer('echo');
    const b = peer('echo');
    await Promise.all([a.transport.start(), b.transport.start()]);
    const text = (seed: number, bytes: number) =>
      Array.from({ length: Math.ceil(bytes / 8) }, (_, i) =>
        (i * seed).toString(36).padStart(7, '.'),
      )
        .join(' ')
        .slice(0, bytes);
    const sizes = [300_000, 1_500_000, 70_000, 900_000];
    const calls = sizes.flatMap((bytes, i) => [
      call(a, i + 1, 'echo', { text: text(3, bytes) }).then((r) => [r, text(3, bytes)]),
      call(b, i + 1, 'echo', { text: text(7, bytes) }).then((r) => [r, text(7, bytes)]),
    ]);
    for (const [result, sent] of await Promise.all(calls)) {
      expect((result as { echo: { text: string } }).echo.text === sent).toBe(true);
    }
    expect([...a.errors, ...b.errors]).toEqual([]);
  });

  it('routes responses and keeps going after garbage lines, reporting each', async () => {
    const h = peer('garbage');
    await h.transport.start();
    await h.next(byMethod('notifications/ready'));
    expect((await call(h, 7, 'hello', { a: 1 })).echo).toEqual({ a: 1 });
    const invalid = h.errors.filter(
      (e) => isStdioTransportError(e) && e.code === StdioTransportErrorCode.STDIO_FRAME_INVALID,
    );
    expect(invalid).toHaveLength(3);
    expect(invalid[0]?.message).toContain('this is not json');
    expect(invalid[1]?.message).toContain('"jsonrpc": "2.0"');
    expect(h.closes).toEqual([]);
  });

  it('skips an oversize frame to its newline and keeps the connection', async () => {
    const h = peer('oversize');
    await h.transport.start();
    expect((await call(h, 1, 'echo', { after: 'huge' })).echo).toEqual({ after: 'huge' });
    expect(h.closes).toEqual([]);
    const skipped = h.errors.find(
      (error) =>
        isStdioTransportError(error) &&
        error.code === StdioTransportErrorCode.STDIO_FRAME_TOO_LARGE,
    );
    expect(skipped?.message).toMatch(/sent a frame of \d+ bytes, over the 4 MiB frame limit/);
  });

  it('fails only the request an oversize result answers; later calls go through', async () => {
    const h = peer('echo');
    await h.transport.start();
    await h.transport.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'big',
      params: { bytes: MCP_LIMITS.stdioFrameBytes + 1000 },
    });
    const answer = await h.next(byId(1));
    expect('error' in answer && answer.error.message).toMatch(
      /the result exceeded the 4 MiB frame limit/,
    );
    expect((await call(h, 2, 'echo', { still: 'open' })).echo).toEqual({ still: 'open' });
    expect(h.closes).toEqual([]);
  });

  it('fails the request an oversize result answers when its id comes last, as the SDK writes it', async () => {
    const h = peer('echo');
    await h.transport.start();
    await h.transport.send({
      jsonrpc: '2.0',
      id: 'req-"last"',
      method: 'big-id-last',
      params: { bytes: MCP_LIMITS.stdioFrameBytes + 1000 },
    });
    const answer = await h.next(byId('req-"last"'));
    expect('error' in answer && answer.error.message).toMatch(
      /the result exceeded the 4 MiB frame limit/,
    );
    expect((await call(h, 2, 'echo', { still: 'open' })).echo).toEqual({ still: 'open' });
    expect(h.closes).toEqual([]);
  });

  it('fails the connection on a runaway frame and kills the server', async () => {
    const h = peer('runaway');
    await h.transport.start();
    const pid = h.transport.pid as number;
    const error = await h.closed;
    expect(isStdioTransportError(error) && error.code).toBe(
      StdioTransportErrorCode.STDIO_FRAME_TOO_LARGE,
    );
    expect(error?.message).toContain('without a newline');
    expect(groupMembers(pid)).toEqual([]);
  });

  it('carries a frame just under the cap in both directions', async () => {
    const h = peer('echo');
    await h.transport.start();
    const bytes = MCP_LIMITS.stdioFrameBytes - 100;
    const result = await call(h, 1, 'big', { bytes });
    expect((result.data as string).length).toBe(bytes);
    const echoed = await call(h, 2, 'echo', { s: 'z'.repeat(bytes - 200) });
    expect(((echoed.echo as { s: string }).s as string).length).toBe(bytes - 200);
  });

  it('refuses an outbound frame over the cap without failing the connection', async () => {
    const h = peer('echo');
    await h.transport.start();
    const error = await h.transport
      .send({
        jsonrpc: '2.0',
        id: 1,
        method: 'x',
        params: { s: 'a'.repeat(MCP_LIMITS.stdioFrameBytes) },
      })
      .catch((e: unknown) => e);
    expect(isStdioTransportError(error) && error.code).toBe(
      StdioTransportErrorCode.STDIO_FRAME_TOO_LARGE,
    );
    expect((await call(h, 2, 'echo', { ok: true })).echo).toEqual({ ok: true });
  });

  it('rejects an outbound message JSON cannot encode, without failing the connection', async () => {
    const h = peer('echo');
    await h.transport.start();
    const error = await h.transport
      .send({ jsonrpc: '2.0', id: 1, method: 'x', params: { n: 1n } })
      .catch((e: unknown) => e);
    expect(isStdioTransportError(error) && error.code).toBe(
      StdioTransportErrorCode.STDIO_FRAME_INVALID,
    );
    expect((await call(h, 2, 'echo', { ok: 1 })).echo).toEqual({ ok: 1 });
  });

  it('keeps frame order for many frames sent in one turn, and in the turns after it', async () => {
    const h = peer('echo');
    await h.transport.start();
    // 3,000 frames of ~70 bytes: many corked batches, more than a pipe buffer holds at once.
    const count = 3000;
    for (const base of [0, 10_000]) {
      // One synchronous burst: the first frame is written at once, the rest leave in batches.
      const sent = Array.from({ length: count }, (_, i) =>
        h.transport.send({ jsonrpc: '2.0', id: base + i, method: 'echo', params: { i } }),
      );
      await Promise.all(sent);
      await h.next(byId(base + count - 1));
    }
    const ids = h.messages.map((m) => ('id' in m ? m.id : undefined));
    expect(ids).toEqual([
      ...Array.from({ length: count }, (_, i) => i),
      ...Array.from({ length: count }, (_, i) => 10_000 + i),
    ]);
    // A lone frame in a later turn still goes out.
    expect((await call(h, 5000, 'echo', { alone: true })).echo).toEqual({ alone: true });
  });

  it('decodes small and big frames exactly, whether pure ASCII or not', async () => {
    const h = peer('echo');
    await h.transport.start();
    // Past the ASCII check size: one pure-ASCII frame (decoded as Latin-1), one with multibyte
    // UTF-8 throughout, one with a single non-ASCII character at its very end.
    const cases = [
      'plain ascii '.repeat(2000),
      'é€😀 mixed '.repeat(2000),
      `${'a'.repeat(9000)}ü`,
      'short é',
    ];
    for (const [i, text] of cases.entries()) {
      expect((await call(h, i + 1, 'echo', { text })).echo).toEqual({ text });
    }
  });

  it('bounds the writer queue when the server stops reading stdin', async () => {
    const h = peer('no-read');
    await h.transport.start();
    await h.next(byMethod('notifications/ready'));
    const mib = 'q'.repeat(1024 * 1024);
    let accepted = 0;
    let refusal: unknown;
    for (let i = 0; i < 20 && refusal === undefined; i++) {
      await h.transport
        .send({ jsonrpc: '2.0', method: 'notifications/blob', params: { mib } })
        .then(() => accepted++)
        .catch((e: unknown) => {
          refusal = e;
        });
    }
    expect(isStdioTransportError(refusal) && refusal.code).toBe(
      StdioTransportErrorCode.STDIO_WRITE_QUEUE_FULL,
    );
    expect(accepted).toBeLessThanOrEqual(WRITE_QUEUE_BYTES / mib.length + 1);
  });
});

describe('stderr', () => {
  it('keeps a bounded, redacted tail of a flood and never blocks the protocol', async () => {
    const h = peer('stderr-flood', {
      env: { PEER_API_KEY: 'abcd1234efgh5678', PEER_PLAIN: 'plain-named-value-7' },
    });
    await h.transport.start();
    expect((await call(h, 1, 'echo', { after: 'flood' })).echo).toEqual({ after: 'flood' });
    // The last lines arrive on a separate pipe; wait for them.
    for (let i = 0; i < 250 && !h.transport.diagnostics().tail.join('').includes('API_KEY'); i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const tail = h.transport.diagnostics().tail;
    expect(tail).toHaveLength(LIMITS.stderrTailLines);
    const text = tail.join('\n');
    expect(text).toContain('Bearer [REDACTED]');
    expect(text).not.toContain('SECRETSECRET');
    expect(text).not.toContain('abcd1234efgh5678');
    // A configured env value is secret whatever its name.
    expect(text).toContain('using [REDACTED] as the workspace');
    for (const line of tail) expect(line.length).toBeLessThanOrEqual(LIMITS.stderrLineBytes + 1);
  });

  it('keeps the newest lines in order across chunk boundaries', async () => {
    const h = peer('stderr-lines');
    await h.transport.start();
    await h.next(byMethod('notifications/ready'));
    for (let i = 0; i < 250 && h.transport.diagnostics().tail.at(-1) !== 'last partial'; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const expected = [...Array.from({ length: 19 }, (_, i) => `line ${81 + i}`), 'last partial'];
    expect(h.transport.diagnostics().tail).toEqual(expected);
  });

  it('takes every configured env value as a secret, except what the package store sets', () => {
    const redactor = new Redactor();
    open.push(
      new StdioTransport({
        name: 'installed',
        command: process.execPath,
        defaultCwd: home,
        redactor,
        env: {
          CLAT_PLUGIN_ID: 'installed-id',
          CLAT_PLUGIN_VERSION: '1.2.3-beta',
          CLAT_PLUGIN_DATA: '/home/u/.clat/plugin-data/installed-id',
          SERVICE_URL: 'https://service.example',
        },
      }),
    );
    expect(
      redactor.redact(
        'installed-id 1.2.3-beta /home/u/.clat/plugin-data/installed-id https://service.example',
      ),
    ).toBe('installed-id 1.2.3-beta /home/u/.clat/plugin-data/installed-id [REDACTED]');
  });

  it('redacts exact secrets from a caller-supplied redactor', async () => {
    const redactor = new Redactor();
    redactor.add('none');
    const h = peer('stderr-flood', { redactor });
    await h.transport.start();
    await call(h, 1, 'echo');
    for (let i = 0; i < 250 && !h.transport.diagnostics().tail.join('').includes('API_KEY'); i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(h.transport.diagnostics().tail.at(-1)).toBe('API_KEY=[REDACTED]');
  });
});

describe('teardown', () => {
  it.runIf(process.platform === 'linux')(
    'kills a setsid() daemon that left the process group and reports it',
    async () => {
      const h = peer('daemon');
      await h.transport.start();
      const note = await h.next(byMethod('notifications/daemon'));
      const daemon = ('params' in note ? (note.params as { pid: number }) : { pid: 0 }).pid;
      expect(daemon).toBeGreaterThan(0);
      // A killed daemon that was re-parented to a PID 1 which does not reap (a container's
      // init) stays a zombie: dead, but still signalable. pidAlive counts zombies as gone.
      expect(pidAlive(daemon)).toBe(true);
      await h.transport.close();
      try {
        // SIGKILL is delivered asynchronously: on a loaded machine the daemon may still be
        // running for a moment after kill() returned, so wait for it (bounded) to be gone.
        const deadline = Date.now() + 5000;
        while (pidAlive(daemon) && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect(pidAlive(daemon)).toBe(false);
        expect(h.transport.diagnostics().detail?.detachedKilled).toBe(String(daemon));
      } finally {
        if (pidAlive(daemon)) process.kill(daemon, 'SIGKILL');
      }
    },
  );

  it('closes a well-behaved server through stdin, once, idempotently', async () => {
    // A generous grace: this server must leave on stdin EOF alone, however slow its start.
    const h = peer('echo', { shutdownGraceMs: 10_000 });
    await h.transport.start();
    await call(h, 1, 'ready');
    const pid = h.transport.pid as number;
    const first = h.transport.close();
    expect(h.transport.close()).toBe(first);
    await first;
    expect(h.transport.diagnostics().detail?.exitCode).toBe(0);
    expect(h.closes).toEqual([undefined]);
    expect(groupMembers(pid)).toEqual([]);
    const error = await h.transport.send({ jsonrpc: '2.0', method: 'x' }).catch((e: unknown) => e);
    expect(isStdioTransportError(error) && error.code).toBe(StdioTransportErrorCode.STDIO_CLOSED);
  });

  it('escalates to SIGKILL for a server that ignores stdin close and SIGTERM', async () => {
    // The server must get to say it ignores SIGTERM before the SIGKILL: a grace that a loaded
    // machine cannot eat up before its handler runs.
    const h = peer('ignore-term', { shutdownGraceMs: 1500 });
    await h.transport.start();
    await h.next(byMethod('notifications/ready'));
    const pid = h.transport.pid as number;
    await h.transport.close();
    expect(h.transport.diagnostics().detail?.signal).toBe('SIGKILL');
    expect(h.transport.diagnostics().tail).toContain('ignoring SIGTERM');
    expect(pidAlive(pid)).toBe(false);
  });

  it('reaches grandchildren through the process group', async () => {
    const h = peer('grandchild');
    await h.transport.start();
    const note = await h.next(byMethod('notifications/grandchild'));
    const grandchild = (note as unknown as { params: { pid: number } }).params.pid;
    expect(pidAlive(grandchild)).toBe(true);
    const pid = h.transport.pid as number;
    await h.transport.close();
    expect(groupMembers(pid)).toEqual([]);
    expect(pidAlive(grandchild)).toBe(false);
  });

  it('a close during start still reaps the process', async () => {
    const h = peer('echo');
    let spawned: number | undefined;
    const t = new StdioTransport({
      name: 'racy',
      command: process.execPath,
      args: [PEER, 'echo'],
      defaultCwd: home,
      onSpawn: (pid) => {
        spawned = pid;
      },
    });
    const starting = t.start().catch((e: unknown) => e);
    await t.close();
    const error = await starting;
    expect(isStdioTransportError(error) && error.code).toBe(StdioTransportErrorCode.STDIO_CLOSED);
    expect(spawned).toBeDefined();
    expect(groupMembers(spawned as number)).toEqual([]);
    await h.transport.close();
  });

  it('disposes like close', async () => {
    const h = peer('echo');
    await h.transport.start();
    const pid = h.transport.pid as number;
    await h.transport[Symbol.asyncDispose]();
    expect(h.closes).toEqual([undefined]);
    expect(groupMembers(pid)).toEqual([]);
  });

  it('rejects send before start and a second start', async () => {
    const h = peer('echo');
    const early = await h.transport.send({ jsonrpc: '2.0', method: 'x' }).catch((e: unknown) => e);
    expect(isStdioTransportError(early) && early.code).toBe(
      StdioTransportErrorCode.STDIO_NOT_STARTED,
    );
    await h.transport.start();
    const again = await h.transport.start().catch((e: unknown) => e);
    expect(isStdioTransportError(again) && again.code).toBe(
      StdioTransportErrorCode.STDIO_NOT_STARTED,
    );
  });
});

describe('StdioTransportFactory', () => {
  it('opens a fresh process per transport and counts spawns', async () => {
    const factory = new StdioTransportFactory({
      name: 'f',
      command: process.execPath,
      args: [PEER, 'echo'],
      defaultCwd: home,
    });
    expect(factory.kind).toBe('stdio');
    expect(factory.probeIsolation).toBe('fresh');
    const a = factory.open();
    const b = factory.open();
    open.push(a, b);
    await a.start();
    await b.start();
    expect(factory.spawnedPids).toEqual([a.pid, b.pid]);
    expect(a.pid).not.toBe(b.pid);
  });
});
