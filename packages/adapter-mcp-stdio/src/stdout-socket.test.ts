import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pairStdoutSocket, type StdoutSocketPair, stdoutListenerPath } from './stdout-socket.js';

const sockets: Socket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
});

async function pair(buffer: Buffer, reads: string[]): Promise<StdoutSocketPair> {
  const made = await pairStdoutSocket(buffer, (length) =>
    reads.push(buffer.toString('utf8', 0, length)),
  );
  if (made === undefined) throw new Error('no pair on this platform');
  sockets.push(made.childEnd, made.reader);
  return made;
}

/** Writes `text` to the child end, ends it, and waits until the reader has read the end. */
async function carry(made: StdoutSocketPair, text: string): Promise<void> {
  const ended = new Promise((resolve) => made.reader.once('end', resolve));
  made.childEnd.end(text);
  await ended;
}

function closed(socket: Socket): Promise<void> {
  if (socket.closed) return Promise.resolve();
  return new Promise((resolve) => socket.once('close', () => resolve()));
}

describe.runIf(process.platform === 'linux')('stdout socket pairs', () => {
  it('carries what the child end writes into the reader buffer', async () => {
    const reads: string[] = [];
    await carry(await pair(Buffer.alloc(64), reads), 'hello\n');
    expect(reads.join('')).toBe('hello\n');
  });

  it('pairs a reader with its own peer, not with a stranger connected before it', async () => {
    const path = (await stdoutListenerPath()) as string;
    expect(path.startsWith('\0')).toBe(true);
    const stranger = connect({ path });
    sockets.push(stranger);
    // The stranger is accepted first and given a token of its own.
    const strangerToken = await new Promise<Buffer>((resolve) => stranger.once('data', resolve));
    expect(strangerToken).toHaveLength(16);
    const reads: string[] = [];
    await carry(await pair(Buffer.alloc(64), reads), 'ours');
    expect(reads.join('')).toBe('ours');
  });

  it('closes a connection nobody claims once the pairing time is over', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const stranger = connect({ path: (await stdoutListenerPath()) as string });
      sockets.push(stranger);
      await new Promise((resolve) => stranger.once('data', resolve));
      const gone = closed(stranger);
      expect(stranger.closed).toBe(false);
      vi.advanceTimersByTime(2_000);
      await gone;
    } finally {
      vi.useRealTimers();
    }
  });

  it('pairs while a stranger holds a connection open without a word', async () => {
    const stranger = connect({ path: (await stdoutListenerPath()) as string });
    sockets.push(stranger);
    await new Promise((resolve) => stranger.once('connect', resolve));
    const reads: string[] = [];
    const made = await Promise.all([pair(Buffer.alloc(64), reads), pair(Buffer.alloc(64), [])]);
    expect(made[0].childEnd).not.toBe(made[1].childEnd);
    expect(stranger.destroyed).toBe(false);
  });
});

describe.runIf(process.platform === 'linux')('a listener flooded by strangers', () => {
  it('closes connections past its bound, so a pairing falls back at once, and recovers', async () => {
    const path = (await stdoutListenerPath()) as string;
    const strangers = Array.from({ length: 256 }, () => connect({ path }));
    sockets.push(...strangers);
    await Promise.all(strangers.map((s) => new Promise((resolve) => s.once('connect', resolve))));
    // With the pairing timeout unable to fire, only the closed connection can end the wait.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      expect(await pairStdoutSocket(Buffer.alloc(64), () => undefined)).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
    await Promise.all(
      strangers.map((s) => {
        const gone = closed(s);
        s.destroy();
        return gone;
      }),
    );
    // The listener sees them leave on its next turns.
    let again: StdoutSocketPair | undefined;
    const reads: string[] = [];
    for (let attempt = 0; again === undefined && attempt < 40; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      again = await pairStdoutSocket(Buffer.alloc(64), (length) => reads.push(String(length)));
    }
    if (again === undefined) throw new Error('the listener did not recover');
    sockets.push(again.childEnd, again.reader);
    await carry(again, 'back');
    expect(reads).toEqual(['4']);
  });
});

describe.runIf(process.platform !== 'linux')('stdout socket pairs elsewhere', () => {
  it('are not made: the transport reads a pipe', async () => {
    expect(await pairStdoutSocket(Buffer.alloc(64), () => undefined)).toBeUndefined();
  });
});
