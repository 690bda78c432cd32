import { describe, expect, it } from 'vitest';
import { isMcpError } from './errors.js';
import { SessionRenewal } from './session-renewal.js';

/** What a transport rejects with when the server forgot the session (wrapped, as the session does). */
function expired(): Error {
  const cause = Object.assign(new Error('no longer knows the session (HTTP 404)'), {
    sessionExpired: true,
  });
  return new Error('could not send tools/call', { cause });
}

function world(handshake: () => Promise<void> = async () => {}) {
  const diagnostics: string[] = [];
  let handshakes = 0;
  let closed = false;
  const renewal = new SessionRenewal({
    server: 'remote',
    handshake: async () => {
      handshakes++;
      await handshake();
    },
    closed: () => closed,
    onDiagnostic: (line) => diagnostics.push(line),
  });
  return {
    renewal,
    diagnostics,
    handshakes: () => handshakes,
    close: () => {
      closed = true;
    },
  };
}

/** An attempt that fails with `failures` in order, then answers `value`. */
function scripted<T>(failures: Error[], value: T) {
  let calls = 0;
  const attempt = async (): Promise<T> => {
    const failure = failures[calls++];
    if (failure !== undefined) throw failure;
    return value;
  };
  return { attempt, calls: () => calls };
}

describe('SessionRenewal', () => {
  it('sends a request that met an expired session again after one new handshake', async () => {
    const w = world();
    const request = scripted([expired()], 'ok');
    await expect(w.renewal.send(request.attempt, undefined, 'tools/call echo')).resolves.toBe('ok');
    expect(request.calls()).toBe(2);
    expect(w.handshakes()).toBe(1);
    expect(w.diagnostics).toEqual([
      'MCP server "remote" no longer knows its session; starting a new one with initialize',
      'MCP server "remote" started a new session',
    ]);
  });

  it('passes other errors through without a handshake', async () => {
    const w = world();
    const request = scripted([new Error('tool failed')], 'ok');
    await expect(w.renewal.send(request.attempt, undefined, 'x')).rejects.toThrow('tool failed');
    expect(w.handshakes()).toBe(0);
    expect(request.calls()).toBe(1);
  });

  it('gives up when the request meets an expired session again in the new one', async () => {
    const w = world();
    const request = scripted([expired(), expired()], 'ok');
    const error = await w.renewal.send(request.attempt, undefined, 'x').catch((e: unknown) => e);
    expect((error as Error).message).toBe('could not send tools/call');
    expect(request.calls()).toBe(2);
    expect(w.handshakes()).toBe(1);
    // The transport is without a session again: the next request starts with a new one.
    const next = scripted([], 'fine');
    await expect(w.renewal.send(next.attempt, undefined, 'y')).resolves.toBe('fine');
    expect(w.handshakes()).toBe(2);
  });

  it('shares one handshake among concurrent requests that met the same expiry', async () => {
    let release = () => {};
    const w = world(() => new Promise<void>((resolve) => (release = resolve)));
    const first = scripted([expired()], 1);
    const second = scripted([expired()], 2);
    const a = w.renewal.send(first.attempt, undefined, 'a');
    const b = w.renewal.send(second.attempt, undefined, 'b');
    // A request sent while the handshake runs waits for it instead of meeting the gap.
    await new Promise((resolve) => setTimeout(resolve, 0));
    const third = scripted([], 3);
    const c = w.renewal.send(third.attempt, undefined, 'c');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(third.calls()).toBe(0);
    release();
    await expect(Promise.all([a, b, c])).resolves.toEqual([1, 2, 3]);
    expect(w.handshakes()).toBe(1);
  });

  it('does not renew again for a request sent in a session already replaced', async () => {
    const w = world();
    let failLate = () => {};
    // Sent in the first session, its expiry arrives after another request renewed it.
    const late = w.renewal.send(
      (() => {
        let calls = 0;
        return () =>
          calls++ === 0
            ? new Promise<string>((_, reject) => (failLate = () => reject(expired())))
            : Promise.resolve('late ok');
      })(),
      undefined,
      'late',
    );
    const early = scripted([expired()], 'early ok');
    await expect(w.renewal.send(early.attempt, undefined, 'early')).resolves.toBe('early ok');
    expect(w.handshakes()).toBe(1);
    failLate();
    await expect(late).resolves.toBe('late ok');
    expect(w.handshakes()).toBe(1);
  });

  it('fails the waiting requests when the new handshake fails, and tries again on the next', async () => {
    let up = false;
    const w = world(async () => {
      if (!up) throw new Error('HTTP_NETWORK: ECONNREFUSED');
    });
    const request = scripted([expired()], 'ok');
    const error = await w.renewal.send(request.attempt, undefined, 'x').catch((e: unknown) => e);
    expect(isMcpError(error) && error.code).toBe('MCP_HANDSHAKE_FAILED');
    expect((error as Error).message).toBe(
      'MCP server "remote" no longer knows its session, and a new initialize failed: HTTP_NETWORK: ECONNREFUSED',
    );
    expect(request.calls()).toBe(1);
    up = true;
    const later = scripted([], 'back');
    await expect(w.renewal.send(later.attempt, undefined, 'y')).resolves.toBe('back');
    expect(w.handshakes()).toBe(2);
  });

  it('lets a caller stop waiting for a shared handshake', async () => {
    let release = () => {};
    const w = world(() => new Promise<void>((resolve) => (release = resolve)));
    const caller = new AbortController();
    const request = scripted([expired()], 'ok');
    const pending = w.renewal.send(request.attempt, caller.signal, 'tools/call slow');
    await new Promise((resolve) => setTimeout(resolve, 0));
    caller.abort('user pressed Esc');
    const error = await pending.catch((e: unknown) => e);
    expect(isMcpError(error) && error.code).toBe('MCP_CANCELLED');
    expect((error as Error).message).toBe('tools/call slow was cancelled');
    release();
  });

  it('leaves the errors of a closing connection as they are', async () => {
    const w = world();
    w.close();
    const request = scripted([expired()], 'ok');
    await expect(w.renewal.send(request.attempt, undefined, 'x')).rejects.toThrow(
      'could not send tools/call',
    );
    expect(w.handshakes()).toBe(0);
  });
});
