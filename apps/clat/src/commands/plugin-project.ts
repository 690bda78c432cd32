/**
 * A plugin project (what `clat plugin new` writes) names its built package in package.json
 * (`"clat": { "package": "dist/package" }`), so `clat plugin install .` installs the build
 * output, never the sources and node_modules.
 * @module
 */
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { MANIFEST_FILE } from '@clat/kernel';
import { PackagingError } from '@clat/packaging';

/**
 * The directory to install for `source`: its `clat.package` when it is a plugin project, and the
 * package directory when `source` is its manifest (`clat plugin install dist/package/clat-plugin.json`
 * means that package; read as a `.clatpkg` it was "not a CLATPKG1 container").
 */
export async function packageDirOf(source: string): Promise<string> {
  const found = await stat(source).catch(() => undefined);
  if (found?.isFile() && basename(source) === MANIFEST_FILE) return dirname(source);
  if (!found?.isDirectory()) return source;
  const text = await readFile(join(source, 'package.json'), 'utf8').catch(() => undefined);
  if (text === undefined) return source;
  let declared: unknown;
  try {
    declared = (JSON.parse(text) as { clat?: { package?: unknown } }).clat?.package;
  } catch {
    return source;
  }
  if (declared === undefined) return source;
  const dir = resolve(source, String(declared));
  const rel = relative(source, dir);
  if (typeof declared !== 'string' || rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    throw new PackagingError(
      'MANIFEST_INVALID',
      `${join(source, 'package.json')}: clat.package must be a directory inside the project, got ${JSON.stringify(declared)}`,
      { file: 'package.json' },
    );
  }
  if (!(await stat(join(dir, MANIFEST_FILE)).catch(() => undefined))?.isFile()) {
    throw new PackagingError(
      'MANIFEST_INVALID',
      `${join(dir, MANIFEST_FILE)} does not exist; build the plugin first (npm run build)`,
      { file: MANIFEST_FILE },
    );
  }
  return dir;
}
