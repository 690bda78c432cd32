/**
 * Dependency direction checked on the real imports of the sources, not only on package.json:
 * the kernel imports no MCP code and nothing from `node:`; the MCP transports import only the
 * kernel and the MCP core (and @clat/process for stdio, @clat/node-files for HTTP's token store);
 * no other adapter imports another; the Node-only leaves @clat/process and @clat/node-files import
 * no workspace package and the kernel neither of them; only apps/clat uses @clat/cli.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LEAF_USERS } from './leaf-packages.js';
import { packageOf, runtimeImports } from './source-imports.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function dirsOf(base: string): string[] {
  const dir = join(ROOT, base);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => existsSync(join(dir, name, 'package.json')))
    .map((name) => join(dir, name));
}

function nameOf(dir: string): string {
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string }).name;
}

/** Workspace packages a package's sources import, with the file of each import. */
function workspaceImports(dir: string): string[] {
  return runtimeImports(join(dir, 'src'))
    .filter(({ specifier }) => packageOf(specifier)?.startsWith('@clat/') === true)
    .map(({ file, specifier }) => `${relative(ROOT, file)} → ${packageOf(specifier)}`);
}

const MCP_CORE = '@clat/adapter-mcp';
// What speaks or produces MCP builds on the MCP core (it owns JSON-RPC, the Transport port, the
// mcp.json schema and the MCP limits): the transports, DSH (an MCP server), the GLM pack, packaging.
const TRANSPORTS = new Set([
  '@clat/adapter-mcp-stdio',
  '@clat/adapter-mcp-http',
  '@clat/adapter-dsh',
  '@clat/adapter-glm',
  '@clat/packaging',
]);

describe('source imports', () => {
  const kernel = join(ROOT, 'packages', 'kernel', 'src');

  it('the parser sees the kernel imports (a guard against a silently empty scan)', () => {
    expect(runtimeImports(kernel).length).toBeGreaterThan(50);
  });

  it('the kernel imports nothing from node: and no MCP package at runtime', () => {
    const offenders = runtimeImports(kernel)
      .filter(({ specifier }) => !specifier.startsWith('.') && specifier !== 'zod')
      .map(({ file, specifier }) => `${relative(ROOT, file)} → ${specifier}`);
    expect(offenders).toEqual([]);
  });

  for (const dir of dirsOf('packages')) {
    const name = nameOf(dir);
    if (name === '@clat/kernel') continue;
    const allowed = TRANSPORTS.has(name) ? ['@clat/kernel', MCP_CORE] : ['@clat/kernel'];
    for (const [leaf, users] of LEAF_USERS) if (users.has(name)) allowed.push(leaf);
    if (LEAF_USERS.has(name)) allowed.length = 0;
    it(`${name} imports only ${allowed.join(' and ') || 'nothing'} of the workspace`, () => {
      const offenders = workspaceImports(dir).filter(
        (line) => !allowed.some((pkg) => line.endsWith(`→ ${pkg}`)),
      );
      expect(offenders).toEqual([]);
    });
  }

  for (const dir of dirsOf('apps')) {
    const name = nameOf(dir);
    if (name === '@clat/cli') continue;
    it(`${name} neither depends on nor imports @clat/cli`, () => {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<
        string,
        Record<string, string> | undefined
      >;
      const declared = ['dependencies', 'peerDependencies', 'devDependencies'].flatMap((key) =>
        Object.keys(manifest[key] ?? {}),
      );
      expect(declared).not.toContain('@clat/cli');
      expect(workspaceImports(dir).filter((line) => line.endsWith('→ @clat/cli'))).toEqual([]);
    });
  }
});
