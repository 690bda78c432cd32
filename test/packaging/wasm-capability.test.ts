/**
 * A WASM plugin that calls a host import its manifest does not declare, through the real `clat`
 * binary: the call's answer names the declaration that grants it and the command that gives an
 * installed plugin the new capability; that command, run as named (with the package's directory),
 * works, and the import answers afterwards.
 */

import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execClat } from '../support/clat-bin.js';

const FAULTS = createRequire(import.meta.url).resolve('@clat-examples/wasm-faults/faults.wasm');

let work = '';
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'clat-wasm-capability-'));
});
afterAll(async () => {
  if (work !== '') await rm(work, { recursive: true, force: true });
});

describe('an undeclared host import of an installed WASM plugin', () => {
  it('names the declaration and the update that grants it, which works as named', async () => {
    const home = join(work, 'home');
    const project = join(work, 'project');
    const pkg = join(work, 'ceiling');
    await mkdir(project, { recursive: true });
    await mkdir(join(pkg, 'dist'), { recursive: true });
    await copyFile(FAULTS, join(pkg, 'dist', 'faults.wasm'));
    const manifest = (version: string, capabilities: Record<string, unknown>) =>
      writeFile(
        join(pkg, 'clat-plugin.json'),
        JSON.stringify({
          manifestVersion: 1,
          id: 'ceiling',
          name: 'Ceiling',
          version,
          runtime: { kind: 'wasm-component', entry: 'dist/faults.wasm', sha256: '0'.repeat(64) },
          capabilities,
        }),
      );
    const clat = (...args: string[]) => execClat(args, { cwd: project, home });
    await manifest('0.1.0', { tools: true });
    expect((await clat('plugin', 'pack', pkg)).code).toBe(0);
    const installed = await clat('plugin', 'install', pkg, '--yes');
    expect(installed.code, installed.stderr).toBe(0);

    const report = async () => {
      const call = await clat('call', 'wasm_ceiling_host_all', '{}', '--trust');
      expect(call.code, call.stderr).toBe(0);
      return JSON.parse(call.stdout) as Record<string, { ok?: unknown; err?: string }>;
    };
    const refused = await report();
    expect(refused.context?.err).toBe(
      'WASM_CAPABILITY_NOT_DECLARED: plugin "ceiling" does not declare capability `hostContext`; its clat-plugin.json needs "capabilities": {"hostContext": true} (an installed plugin then takes it with clat plugin update <its package> --accept-capabilities)',
    );

    // The declaration named, and the update named with the package's directory.
    await manifest('0.2.0', { tools: true, hostContext: true });
    expect((await clat('plugin', 'pack', pkg)).code).toBe(0);
    const updated = await clat('plugin', 'update', pkg, '--accept-capabilities');
    expect(updated.code, updated.stderr).toBe(0);
    const granted = await report();
    expect(granted.context).toEqual({ ok: project });
  }, 120_000);
});
