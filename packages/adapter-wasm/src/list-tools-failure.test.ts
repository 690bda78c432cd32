import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WasmErrorCode } from './errors.js';
import { mountWasmPlugin } from './mount.js';
import { buildWatComponent, pluginWit } from './test-support/build-wat.js';
import { createHarness } from './test-support/harness.js';
import { startFailedText, trapReasonOf } from './worker-messages.js';

// What a componentize-js (StarlingMonkey) guest prints when its list-tools lowers an effect
// outside the WIT enum, just before it traps.
const STARLING_STDERR =
  '"writes" is not one of the cases of effect\nStack:\n  export_tools_0_1_0$listTools@/tmp/x/sources/initializer.js:652:15\nRedirecting call to abort() to mozalloc_abort\n';
const TRAP = 'RuntimeError: wasm trap: wasm `unreachable` instruction executed';

describe('trapReasonOf', () => {
  it('reads the exception StarlingMonkey printed before its stack, after the guest own lines', () => {
    expect(trapReasonOf(STARLING_STDERR)).toBe('"writes" is not one of the cases of effect');
    expect(trapReasonOf(`starting\r\n${STARLING_STDERR.replaceAll('\n', '\r\n')}`)).toBe(
      '"writes" is not one of the cases of effect',
    );
  });

  it('finds nothing in output of another shape, and caps a long reason', () => {
    expect(trapReasonOf('')).toBeUndefined();
    expect(trapReasonOf("thread 'main' panicked at src/lib.rs:3:5:\nbad effect\n")).toBeUndefined();
    expect(trapReasonOf('Stack:\n  frame\n')).toBeUndefined();
    expect(trapReasonOf(`${'x'.repeat(600)}\nStack:\n`)).toBe(`${'x'.repeat(512)}…`);
  });
});

describe('startFailedText', () => {
  it('names the plugin, list-tools and why, when listing the tools failed', () => {
    const listing = (trapped: boolean, stderr: string) => ({
      type: 'start-failed' as const,
      message: TRAP,
      listTools: { trapped, stderr },
    });
    expect(startFailedText('save', listing(true, STARLING_STDERR))).toBe(
      'wasm plugin save failed to start: listing its tools (list-tools) trapped: "writes" is not one of the cases of effect',
    );
    expect(startFailedText('save', listing(true, ''))).toBe(
      `wasm plugin save failed to start: listing its tools (list-tools) trapped: ${TRAP}`,
    );
    expect(startFailedText('save', { ...listing(false, ''), message: 'TypeError: bad' })).toBe(
      'wasm plugin save failed to start: listing its tools (list-tools) failed: TypeError: bad',
    );
  });

  it('keeps the error alone for a failure before the tools were listed', () => {
    expect(startFailedText('save', { type: 'start-failed', message: 'Error: no memory' })).toBe(
      'wasm plugin save failed to start: Error: no memory',
    );
  });
});

describe('mounting a guest whose list-tools fails', () => {
  let h: ReturnType<typeof createHarness>;
  let wat: string;

  beforeAll(async () => {
    h = createHarness();
    await mkdir(h.projectRoot, { recursive: true });
    wat = await readFile(join(import.meta.dirname, 'test-support', 'plugin.wat'), 'utf8');
  });

  afterAll(async () => {
    await h?.dispose();
  });

  /** Mounts the fixture guest with `from` replaced by `to` in its text. */
  async function mountVariant(name: string, from: string, to: string) {
    if (!wat.includes(from)) throw new Error(`the fixture no longer contains ${from}`);
    const componentPath = join(h.root, `${name}.wasm`);
    await writeFile(
      componentPath,
      await buildWatComponent(wat.replace(from, to), await pluginWit()),
    );
    const plugin = await mountWasmPlugin({ ...h.mountOptions(name), componentPath });
    return plugin.status();
  }

  it('reports a trap in list-tools as such, naming the plugin', async () => {
    const status = await mountVariant(
      'lister',
      '(func (export "clat:plugin/tools@0.1.0#list-tools") (result i32)\n',
      '(func (export "clat:plugin/tools@0.1.0#list-tools") (result i32)\n    unreachable\n',
    );
    expect(status).toMatchObject({ state: 'failed', tools: 0 });
    expect(status.failure).toBe(
      `wasm plugin lister failed to start: listing its tools (list-tools) trapped: ${TRAP} [${WasmErrorCode.WASM_START_FAILED}]`,
    );
  });

  it('reports a tool list the host cannot read (an effect outside the enum) as a list-tools failure', async () => {
    // The echo definition's effect discriminant: 0 (pure) becomes 8, one past session-write.
    const status = await mountVariant(
      'effects',
      '\\c2\\04\\00\\00\\11\\00\\00\\00\\00\\00\\00\\00")\n  ;; definition config',
      '\\c2\\04\\00\\00\\11\\00\\00\\00\\08\\00\\00\\00")\n  ;; definition config',
    );
    expect(status).toMatchObject({ state: 'failed', tools: 0 });
    // jco's lift refuses the discriminant: not a trap of the guest, so `failed`, with jco's words.
    expect(status.failure).toBe(
      `wasm plugin effects failed to start: listing its tools (list-tools) failed: TypeError: invalid discriminant specified for Effect [${WasmErrorCode.WASM_START_FAILED}]`,
    );
  });
});
