import type { PluginManifest } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { applyConfigValues } from './config-values.js';

const manifest = {
  id: 'vault',
  userConfig: {
    pin: { type: 'number', title: 'PIN', sensitive: true },
    strict: { type: 'boolean', title: 'Strict', sensitive: true },
    port: { type: 'number', title: 'Port' },
  },
} as unknown as PluginManifest;

describe('applyConfigValues', () => {
  it('never puts a sensitive setting it refuses into the error', async () => {
    const typo = '48z1-sk-proj-secret';
    await expect(applyConfigValues(manifest, undefined, { pin: typo })).rejects.toThrow(
      'setting pin of vault must be a number (the value given is not shown: the setting is sensitive)',
    );
    await expect(applyConfigValues(manifest, undefined, { strict: typo })).rejects.toThrow(
      'setting strict of vault must be true or false (the value given is not shown: the setting is sensitive)',
    );
    const required = {
      ...manifest,
      userConfig: { pin: { type: 'number', title: 'PIN', sensitive: true, required: true } },
    } as unknown as PluginManifest;
    // An answer typed at the terminal's secret prompt is checked the same way.
    await expect(applyConfigValues(required, undefined, {}, async () => typo)).rejects.toThrow(
      'setting pin of vault must be a number (the value given is not shown: the setting is sensitive)',
    );
  });

  it('quotes a value that is not sensitive, so the typo is easy to spot', async () => {
    await expect(applyConfigValues(manifest, undefined, { port: '80x' })).rejects.toThrow(
      'setting port of vault must be a number, not "80x"',
    );
  });
});
