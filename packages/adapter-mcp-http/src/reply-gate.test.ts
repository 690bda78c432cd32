import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isHttpTransportError } from './errors.js';
import { HttpTransport } from './http-transport.js';
import { REPLY_POSTS_MAX, REPLY_QUEUE_MAX, ReplyGate } from './reply-gate.js';

describe('ReplyGate', () => {
  it('admits a few, queues up to the cap, drops the rest, and drains in order', async () => {
    const gate = new ReplyGate(2, 3);
    const admitted = await Promise.all([gate.acquire(), gate.acquire()]);
    expect(admitted).toEqual([true, true]);
    const queued = [gate.acquire(), gate.acquire(), gate.acquire()];
    expect(await gate.acquire()).toBe(false);
    gate.release();
    expect(await queued[0]).toBe(true);
    gate.close();
    expect(await Promise.all(queued.slice(1))).toEqual([false, false]);
    expect(await gate.acquire()).toBe(false);
  });
});

// A real server that holds every reply POST for a while and counts how many are open at once.
let server: Server;
let url: string;
let active = 0;
let peak = 0;
let received = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      active++;
      received++;
      peak = Math.max(peak, active);
      setTimeout(() => {
        active--;
        res.writeHead(202).end();
      }, 50);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('HttpTransport reply flood (issue 14 item 4)', () => {
  it('posts at most a few replies at once, queues a capped number and drops the rest', async () => {
    const transport = new HttpTransport({ url });
    const replies = Array.from({ length: 2000 }, (_, i) =>
      transport.send({ jsonrpc: '2.0', id: `s${i}`, result: {} }),
    );
    const settled = await Promise.allSettled(replies);
    const sent = settled.filter((outcome) => outcome.status === 'fulfilled').length;
    const dropped = settled.filter(
      (outcome) =>
        outcome.status === 'rejected' &&
        isHttpTransportError(outcome.reason) &&
        outcome.reason.code === 'HTTP_REPLY_DROPPED',
    ).length;
    expect(peak).toBeLessThanOrEqual(REPLY_POSTS_MAX);
    expect(sent).toBe(REPLY_POSTS_MAX + REPLY_QUEUE_MAX);
    expect(received).toBe(sent);
    expect(dropped).toBe(2000 - sent);
    expect(transport.diagnostics().detail?.repliesDropped).toBe(dropped);
    await transport.close();
  });
});
