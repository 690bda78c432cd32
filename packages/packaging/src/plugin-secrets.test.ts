import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSecrets, SECRETS_DIR, sweepSecrets, writeSecrets } from './plugin-secrets.js';
import { emptyRegistry, type PackageRecord, type Registry } from './registry.js';

let home = '';
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'clat-secrets-'));
});
afterEach(() => rm(home, { recursive: true, force: true }));

const dir = () => join(home, SECRETS_DIR);
const SHA = 'a'.repeat(64);
/** A manifest's settings: `pin` is sensitive. */
const VAULT = { userConfig: { pin: { type: 'string', title: 'PIN', sensitive: true } } } as const;

/** A registry whose package `id` has these activations' secrets tokens (undefined: legacy). */
function registryWith(id: string, active: string | undefined, rollback?: string): Registry {
  const activation = (secrets: string | undefined) => ({
    artifact: SHA,
    acceptedCapabilities: { tools: true },
    ...(secrets === undefined ? {} : { secrets }),
  });
  const registry = emptyRegistry();
  registry.packages[id] = {
    enabled: true,
    active: activation(active),
    ...(rollback === undefined ? {} : { rollback: activation(rollback) }),
    artifacts: {},
  } as unknown as PackageRecord;
  return registry;
}

describe('plugin secrets, one file per activation', () => {
  it('writes a new owner-only file under a fresh token and never touches the active one', async () => {
    const first = await writeSecrets(home, 'vault', { pin: 'old-0123456789' });
    // An update's write, then no registry write (the process was stopped in between): the
    // active activation still reads its own value.
    const second = await writeSecrets(home, 'vault', { pin: 'new-0123456789' });
    expect(second).not.toBe(first);
    expect(second).toMatch(/^[0-9a-f]{16}$/);
    expect(await readSecrets(home, 'vault', { secrets: first }, VAULT)).toEqual({
      pin: 'old-0123456789',
    });
    expect(await readSecrets(home, 'vault', { secrets: second }, VAULT)).toEqual({
      pin: 'new-0123456789',
    });
    expect((await stat(join(dir(), `vault.${second}.json`))).mode & 0o777).toBe(0o600);
    expect((await stat(dir())).mode & 0o777).toBe(0o700);
    // No sensitive settings: a token, and no file.
    const none = await writeSecrets(home, 'vault', {});
    expect(await readSecrets(home, 'vault', { secrets: none }, VAULT)).toEqual({});
    expect((await readdir(dir())).sort()).toEqual(
      [`vault.${first}.json`, `vault.${second}.json`].sort(),
    );
  });

  it("reads an older registry's activation (no token) from the one file per id", async () => {
    await mkdir(dir(), { recursive: true });
    await writeFile(join(dir(), 'vault.json'), JSON.stringify({ pin: 'legacy' }));
    expect(await readSecrets(home, 'vault', {}, VAULT)).toEqual({ pin: 'legacy' });
  });

  it('names an unreadable file, its sensitive keys and the configure that sets them again', async () => {
    await mkdir(dir(), { recursive: true });
    const file = join(dir(), 'vault.0123456789abcdef.json');
    await writeFile(file, '');
    await expect(
      readSecrets(home, 'vault', { secrets: '0123456789abcdef' }, VAULT),
    ).rejects.toMatchObject({
      code: 'SECRETS_UNREADABLE',
      message: `${file} is not a JSON object (it is empty); set vault's sensitive settings (pin) again with "clat plugin configure vault --config pin=<value>"`,
    });
    await writeFile(file, '{"pin":"01');
    await expect(
      readSecrets(home, 'vault', { secrets: '0123456789abcdef' }, { userConfig: {} }),
    ).rejects.toMatchObject({
      message: `${file} is not a JSON object (it was cut short or changed); vault has no sensitive settings, so remove it`,
    });
  });

  it('sweeps what no activation reads: replaced, orphaned, uninstalled and temporary files', async () => {
    const active = await writeSecrets(home, 'vault', { pin: 'active' });
    const rollback = await writeSecrets(home, 'vault', { pin: 'rollback' });
    const orphan = await writeSecrets(home, 'vault', { pin: 'orphan' });
    await writeSecrets(home, 'gone', { pin: 'uninstalled' });
    await writeFile(join(dir(), 'vault.json'), '{"pin":"legacy, replaced"}');
    // What a write killed between creating and renaming its temporary file leaves.
    await writeFile(join(dir(), `.vault.${orphan}.json.4242.0123456789abcdef.tmp`), '{"pin":"x"}');
    await sweepSecrets(home, registryWith('vault', active, rollback));
    expect((await readdir(dir())).sort()).toEqual(
      [`vault.${active}.json`, `vault.${rollback}.json`].sort(),
    );
    // A legacy activation keeps the one file per id.
    await writeFile(join(dir(), 'vault.json'), '{"pin":"legacy"}');
    await sweepSecrets(home, registryWith('vault', undefined, active));
    expect((await readdir(dir())).sort()).toEqual([`vault.${active}.json`, 'vault.json'].sort());
    expect(JSON.parse(await readFile(join(dir(), 'vault.json'), 'utf8'))).toEqual({
      pin: 'legacy',
    });
    await sweepSecrets(home, emptyRegistry());
    expect(await readdir(dir())).toEqual([]);
  });
});
