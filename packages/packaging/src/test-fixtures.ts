/** Builds small package directories for tests. Not part of the published API. */
import { createHash } from 'node:crypto';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { PluginManifestInput } from '@clat/kernel';

export interface FixtureOptions {
  id?: string;
  version?: string;
  capabilities?: PluginManifestInput['capabilities'];
  configSchema?: Record<string, unknown>;
  entry?: string;
  entryText?: string;
  extraFiles?: Record<string, string>;
  manifest?: Partial<PluginManifestInput>;
  executable?: boolean;
  args?: string[];
}

/** Writes a valid mcp-stdio package (executable node entry + manifest with its digest). */
export async function writeFixturePackage(dir: string, options: FixtureOptions = {}) {
  const entry = options.entry ?? 'bin/server.mjs';
  const version = options.version ?? '1.0.0';
  const entryText =
    options.entryText ?? `#!/usr/bin/env node\nprocess.stdout.write('fixture ${version}\\n');\n`;
  const entryPath = join(dir, ...entry.split('/'));
  await mkdir(dirname(entryPath), { recursive: true });
  await writeFile(entryPath, entryText);
  await chmod(entryPath, options.executable === false ? 0o644 : 0o755);
  for (const [path, text] of Object.entries(options.extraFiles ?? {})) {
    const target = join(dir, ...path.split('/'));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, text);
  }
  const manifest: PluginManifestInput = {
    manifestVersion: 1,
    id: options.id ?? 'fixture',
    name: 'Fixture',
    version,
    runtime: {
      kind: 'mcp-stdio',
      entry,
      sha256: createHash('sha256').update(entryText).digest('hex'),
      ...(options.args === undefined ? {} : { args: options.args }),
    },
    capabilities: options.capabilities ?? { tools: true },
    ...(options.configSchema === undefined ? {} : { configSchema: options.configSchema }),
    ...options.manifest,
  };
  await writeFile(join(dir, 'clat-plugin.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return { dir, manifest };
}
