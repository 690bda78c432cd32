import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type LoopbackListener, startLoopbackListener } from './loopback-listener.js';

const open: (LoopbackListener | Server)[] = [];

afterEach(async () => {
  for (const item of open.splice(0)) {
    if ('redirectUri' in item) await item.close();
    else await new Promise<void>((resolve) => item.close(() => resolve()));
  }
});

async function busyPort(): Promise<number> {
  const server = createServer();
  open.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('startLoopbackListener', () => {
  it('listens on an ephemeral 127.0.0.1 port, and on another when the preferred one is taken', async () => {
    const taken = await busyPort();
    const listener = await startLoopbackListener({ preferred: taken });
    open.push(listener);
    expect(listener.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(listener.redirectUri).not.toContain(`:${taken}/`);
  });

  it('takes a fixed port as http://localhost:<port>/callback and delivers its query', async () => {
    const port = await freePort();
    const listener = await startLoopbackListener({ fixed: port });
    open.push(listener);
    expect(listener.redirectUri).toBe(`http://localhost:${port}/callback`);
    const received = listener.callback(AbortSignal.timeout(5_000));
    const response = await fetch(`http://127.0.0.1:${port}/callback?code=c1&state=s1`);
    expect(response.status).toBe(200);
    expect((await received).get('code')).toBe('c1');
    // Nothing else on the port is served.
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
  });

  it('ignores a request its predicate does not take, and keeps waiting for the one it does', async () => {
    const listener = await startLoopbackListener();
    open.push(listener);
    const received = listener.callback(
      AbortSignal.timeout(5_000),
      (params) => params.get('state') === 'ours',
    );
    const stray = await fetch(`${listener.redirectUri}?code=x&state=theirs`);
    expect(stray.status).toBe(400);
    expect(await stray.text()).toContain('not the authorization response CLAT is waiting for');
    const ours = await fetch(`${listener.redirectUri}?code=c2&state=ours`);
    expect(ours.status).toBe(200);
    expect((await received).get('code')).toBe('c2');
  });

  it('refuses a fixed port that another process holds instead of moving elsewhere', async () => {
    const taken = await busyPort();
    await expect(startLoopbackListener({ fixed: taken })).rejects.toMatchObject({
      code: 'EADDRINUSE',
    });
  });
});
