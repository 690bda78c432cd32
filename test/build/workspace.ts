import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface Manifest {
  name: string;
  private?: boolean;
  packageManager?: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  exports?: Record<string, unknown>;
}

export interface WorkspacePackage {
  /** Repository-relative directory, e.g. `packages/kernel`. */
  dir: string;
  manifest: Manifest;
}

/** Every workspace package under packages/, apps/ and plugins/. */
export function workspacePackages(): WorkspacePackage[] {
  return ['packages', 'apps', 'plugins'].flatMap((group) =>
    existsSync(join(ROOT, group))
      ? readdirSync(join(ROOT, group))
          .filter((name) => existsSync(join(ROOT, group, name, 'package.json')))
          .map((name) => ({
            dir: `${group}/${name}`,
            manifest: readJson(join(group, name, 'package.json')) as Manifest,
          }))
      : [],
  );
}

/** `{ subpath: typesFile }` for every export entry that ships declarations. */
export function typedEntries(manifest: Manifest): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
    if (typeof target === 'object' && target !== null && 'types' in target) {
      entries[subpath] = String((target as { types: unknown }).types);
    }
  }
  return entries;
}

/** Reads a repository JSON file; tsconfig files may carry comments and trailing commas. */
export function readJson(file: string): unknown {
  const text = readFileSync(join(ROOT, file), 'utf8')
    .replace(/("(?:[^"\\]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (_, string) => string ?? '')
    .replace(/,(\s*[}\]])/g, '$1');
  return JSON.parse(text);
}
