import { setTimeout as delay } from 'node:timers/promises';
import {
  type CompiledComponent,
  compileComponent,
  type GuestCallOutcome,
  JcoGuestHost,
  type JcoGuestHostOptions,
  prepareComponent,
  WasmErrorCode,
} from '@clat/adapter-wasm';
import { LIMITS } from '@clat/kernel';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GUESTS, removeSharedCache, SHARED_CACHE } from './harness.js';

afterAll(removeSharedCache);

/** Settles with the outcome, or with 'hung' if the call is still running after `ms`. */
function within(ms: number, call: Promise<GuestCallOutcome>): Promise<GuestCallOutcome | 'hung'> {
  return Promise.race([call, delay(ms).then(() => 'hung' as const)]);
}

/**
 * Issue 22 items 4 and 5, against the hostile faults guest (plugins/wasm-faults, built with the
 * guest SDK): time in ordinary host calls counts against the call budget, only sampling and
 * elicitation waits extend it (bounded), the call queue is bounded and a cancelled waiting call
 * settles at once.
 */
describe('the time budget and call queue of a wasm plugin', () => {
  let component: CompiledComponent;
  const hosts: JcoGuestHost[] = [];

  beforeAll(async () => {
    const prepared = await prepareComponent({
      componentPath: GUESTS.faults,
      cacheDir: SHARED_CACHE,
    });
    component = await compileComponent(prepared);
  });

  afterEach(async () => {
    for (const host of hosts.splice(0)) await host.close();
  });

  const createHost = (
    options: Partial<JcoGuestHostOptions> & { samplingMs?: number; latencyMs?: number },
  ) => {
    const host = new JcoGuestHost({
      plugin: 'faults',
      component,
      preopens: [],
      hostImports: async (iface, fn, _args, signal) => {
        await delay(options.latencyMs ?? 5, undefined, { signal });
        if (iface === 'host' && fn === 'context') return '{"project":{"root":"/p"}}';
        if (iface === 'sampling') {
          await delay(options.samplingMs ?? 0, undefined, { signal });
          return { text: 'sampled', model: 'm', stopReason: 'endTurn' };
        }
        throw `unexpected host import ${iface}.${fn}`;
      },
      ...options,
    });
    hosts.push(host);
    return host;
  };

  const signal = () => new AbortController().signal;

  it('a guest looping on cheap host calls is stopped at its budget', async () => {
    // Each host call takes 200 ms: with host time excluded, 800 ms of guest time take minutes.
    const host = createHost({ callTimeoutMs: 800, latencyMs: 200 });
    await host.start();
    const outcome = await within(6_000, host.call('context_loop', '{}', signal()));
    expect(outcome).toMatchObject({
      kind: 'timeout',
      message: expect.stringContaining('ran past its 800 ms time budget'),
    });
  });

  it('sampling waits extend a call past its budget', async () => {
    const host = createHost({ callTimeoutMs: 800, samplingMs: 1_500 });
    await host.start();
    expect(await host.call('sample', '{}', signal())).toEqual({
      kind: 'ok',
      value: '"sampled"',
    });
  });

  it('but only up to the extension allowance in total', async () => {
    const host = createHost({ callTimeoutMs: 800, hostWaitLimitMs: 1_000, samplingMs: 5_000 });
    await host.start();
    const outcome = await within(10_000, host.call('sample', '{}', signal()));
    expect(outcome).toMatchObject({
      kind: 'timeout',
      message: expect.stringContaining('waited on sampling or elicitation for more than 1000 ms'),
    });
  });

  it(`holds at most ${LIMITS.wasmCallQueue} waiting calls; more fail fast`, async () => {
    const host = createHost({ callTimeoutMs: 30_000 });
    await host.start();
    const stop = new AbortController();
    const busy = host.call('spin', '{}', stop.signal);
    const waiting = Array.from({ length: LIMITS.wasmCallQueue }, (_, index) =>
      host.call('echo', JSON.stringify({ index }), signal()),
    );
    await expect(host.call('echo', '{}', signal())).rejects.toMatchObject({
      code: WasmErrorCode.WASM_QUEUE_FULL,
      message: `wasm plugin faults already has ${LIMITS.wasmCallQueue} calls waiting (the limit); call "echo" again when they finish`,
    });
    stop.abort();
    expect(await busy).toMatchObject({ kind: 'cancelled' });
    const outcomes = await Promise.all(waiting);
    expect(outcomes.every((outcome) => outcome.kind === 'ok')).toBe(true);
  });

  it('a cancelled waiting call settles at once, not after the calls ahead of it', async () => {
    const host = createHost({ callTimeoutMs: 30_000 });
    await host.start();
    const stop = new AbortController();
    const busy = host.call('spin', '{}', stop.signal);
    const cancel = new AbortController();
    const queued = host.call('echo', '{}', cancel.signal);
    await delay(100);
    cancel.abort();
    expect(await within(1_000, queued)).toMatchObject({ kind: 'cancelled' });
    expect(await within(50, busy)).toBe('hung');
    stop.abort();
    expect(await busy).toMatchObject({ kind: 'cancelled' });
  });
});
