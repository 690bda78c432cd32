import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LEAF_USERS } from './leaf-packages.js';

// Dependency direction is enforced here, not just documented (house style §7.3).
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Manifest {
  name: string;
  private?: boolean;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  exports?: Record<string, unknown>;
  files?: string[];
  publishConfig?: Record<string, unknown>;
  license?: string;
}

function workspacePackages(dir: string): { dir: string; manifest: Manifest }[] {
  const base = join(ROOT, dir);
  if (!existsSync(base)) return [];
  return readdirSync(base)
    .map((name) => join(base, name, 'package.json'))
    .filter((file) => existsSync(file))
    .map((file) => ({
      dir: dirname(file),
      manifest: JSON.parse(readFileSync(file, 'utf8')) as Manifest,
    }));
}

const packages = workspacePackages('packages');
const runtimeDeps = (m: Manifest) => ({ ...m.dependencies, ...m.peerDependencies });

describe('package topology', () => {
  it('the kernel depends on zod only', () => {
    const kernel = packages.find((p) => p.manifest.name === '@clat/kernel');
    expect(kernel).toBeDefined();
    expect(Object.keys(runtimeDeps(kernel?.manifest as Manifest))).toEqual(['zod']);
  });

  // The MCP core (@clat/adapter-mcp) owns the Transport port, JSON-RPC, the mcp.json schema and
  // the MCP limits; what speaks or produces MCP builds on it. No other adapter edge exists.
  const MCP_CORE = '@clat/adapter-mcp';
  const MCP_CORE_USERS = new Set([
    '@clat/adapter-mcp-stdio',
    '@clat/adapter-mcp-http',
    '@clat/adapter-dsh',
    '@clat/adapter-glm',
    '@clat/packaging',
  ]);
  // Node-only leaf utilities (@clat/process, @clat/node-files), not adapters: the packages that
  // need one use it as a plain dependency, and a leaf depends on no workspace package itself.
  for (const leaf of LEAF_USERS.keys()) {
    it(`${leaf} depends on no workspace package`, () => {
      const leafPkg = packages.find((p) => p.manifest.name === leaf);
      expect(leafPkg).toBeDefined();
      const manifest = leafPkg?.manifest as Manifest;
      const internal = Object.keys({ ...runtimeDeps(manifest), ...manifest.devDependencies });
      expect(internal.filter((name) => name.startsWith('@clat/'))).toEqual([]);
    });
  }
  for (const { manifest } of packages.filter((p) => p.manifest.name !== '@clat/kernel')) {
    it(`${manifest.name} depends on no other workspace adapter, and on the kernel as a peer`, () => {
      const allowed = new Set(['@clat/kernel']);
      if (MCP_CORE_USERS.has(manifest.name)) allowed.add(MCP_CORE);
      const internal = Object.keys({
        ...runtimeDeps(manifest),
        ...manifest.devDependencies,
      }).filter(
        (name) =>
          name.startsWith('@clat/') &&
          !allowed.has(name) &&
          LEAF_USERS.get(name)?.has(manifest.name) !== true,
      );
      expect(internal).toEqual([]);
      // Any 0.x kernel (and MCP core): a minor release stays in range, so changesets plans no
      // major bump of the dependents (onlyUpdatePeerDependentsWhenOutOfRange in .changeset/config.json).
      for (const peer of allowed) {
        if (runtimeDeps(manifest)[peer] === undefined) continue;
        expect(manifest.peerDependencies?.[peer]).toBe('workspace:>=0.1.0 <1.0.0');
        expect(manifest.dependencies?.[peer]).toBeUndefined();
      }
    });

    it(`${manifest.name} is publish-ready: files with README and LICENSE, public access`, () => {
      expect(manifest.files).toEqual(expect.arrayContaining(['dist', 'README.md', 'LICENSE']));
      expect(manifest.publishConfig).toEqual({ access: 'public' });
      expect(manifest.license).toBe('MIT');
    });

    it(`${manifest.name} exposes sources to the workspace through the @clat/source condition`, () => {
      for (const [key, target] of Object.entries(manifest.exports ?? {})) {
        if (typeof target !== 'object' || target === null) continue;
        expect(Object.keys(target)[0], `${manifest.name} exports["${key}"]`).toBe('@clat/source');
      }
    });
  }

  it('no package source imports another package through a deep src path', () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.name === 'node_modules' || entry.name === 'dist') continue;
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (/\.(ts|mts|js|mjs)$/.test(entry.name)) {
          const text = readFileSync(path, 'utf8');
          if (/from ['"]@clat\/[^'"]+\/src\//.test(text)) offenders.push(path);
        }
      }
    };
    for (const { dir } of packages) walk(join(dir, 'src'));
    expect(offenders).toEqual([]);
  });
});

describe('kernel runtime neutrality (built output)', () => {
  const dist = join(ROOT, 'packages', 'kernel', 'dist');
  it.runIf(existsSync(dist))('dist imports no Node built-ins and nothing but zod', () => {
    const files = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.js'),
    );
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const text = readFileSync(join(dist, file), 'utf8');
      const statement =
        /^\s*(?:import|export)\b[^'"\n;]*?\bfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;
      const specifiers = [...text.matchAll(statement)].map((m) => (m[1] ?? m[2] ?? m[3]) as string);
      const external = specifiers.filter((s) => !s.startsWith('.'));
      expect(
        external.filter((s) => s !== 'zod'),
        file,
      ).toEqual([]);
    }
  });
});
