import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type PreparedComponent, prepareComponent } from './component-cache.js';
import { type CompilingComponent, startCompile } from './component-compile.js';
import { isWasmError, WasmError, WasmErrorCode } from './errors.js';
import { JcoGuestHost } from './jco-guest-host.js';
import { mountWasmPlugin } from './mount.js';
import { createComponentHarness, type createHarness } from './test-support/harness.js';

const MiB = 1024 * 1024;

/** A promise settled by hand: the component "still being prepared". */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * A guest host is created before its component is read and verified, so Node's worker start (the
 * longest step of a cached load) overlaps that work. These are the edges of that window.
 */
describe('a guest host whose component is still being prepared', () => {
  let h: ReturnType<typeof createHarness>;
  let componentPath: string;
  let prepared: PreparedComponent;
  const hosts: JcoGuestHost[] = [];

  beforeAll(async () => {
    let cacheDir: string;
    ({ h, componentPath, cacheDir } = await createComponentHarness('wat-plugin.wasm'));
    prepared = await prepareComponent({ componentPath, cacheDir });
  });

  afterEach(async () => {
    for (const host of hosts.splice(0)) await host.close();
  });

  afterAll(async () => {
    await h?.dispose();
  });

  const hostFor = (component: Promise<CompilingComponent>, startTimeoutMs?: number) => {
    const host = new JcoGuestHost({
      plugin: 'wat',
      component,
      preopens: [],
      hostImports: async () => '{}',
      startTimeoutMs,
    });
    hosts.push(host);
    return host;
  };

  it('boots its worker at once and starts when the component arrives, the wait not counted against the start budget', async () => {
    const component = deferred<CompilingComponent>();
    const host = hostFor(component.promise, 1_000);
    const starting = host.start();
    expect(host.running).toBe(true);
    // Longer than the start budget: preparing (a first load transpiles) is not the start.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    component.resolve(startCompile(prepared, 32 * MiB));
    const tools = await starting;
    expect(tools.map((tool) => tool.name)).toContain('echo');
    const outcome = await host.call('echo', '{"text":"early"}', new AbortController().signal);
    expect(outcome).toEqual({ kind: 'ok', value: expect.stringContaining('early') });
  });

  it('fails its start with the preparation error and ends the worker', async () => {
    const component = deferred<CompilingComponent>();
    const host = hostFor(component.promise);
    const starting = host.start();
    const refused = new WasmError(
      WasmErrorCode.WASM_DIGEST_MISMATCH,
      'component x has SHA-256 a, but b is pinned',
    );
    component.reject(refused);
    await expect(starting).rejects.toBe(refused);
    expect(host.running).toBe(false);
  });

  it('ends a start still waiting for the component when closed, instead of leaving it pending', async () => {
    const component = deferred<CompilingComponent>();
    const host = hostFor(component.promise);
    const stopped = host.start().catch((caught: unknown) => caught);
    await host.close();
    const error = await stopped;
    expect(isWasmError(error) && error.code).toBe(WasmErrorCode.WASM_CLOSED);
    expect(host.running).toBe(false);
    // The component arriving afterwards starts nothing.
    component.resolve(startCompile(prepared, 32 * MiB));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(host.running).toBe(false);
  });

  it('a mount whose scope closes while its component is read ends closed, not failed', async () => {
    const scope = h.scope.pluginScope('closing');
    const mounting = mountWasmPlugin({
      name: 'closing',
      componentPath,
      registry: h.registry,
      scope,
      hostServices: h.bridge,
      projectRoot: h.projectRoot,
      clatHome: h.clatHome,
      memoryLimitBytes: 32 * MiB,
    });
    await scope.close();
    const mounted = await mounting;
    expect(mounted.status().state).toBe('closed');
    expect(h.registry.list().some((tool) => tool.name.startsWith('wasm_closing_'))).toBe(false);
  });
});
