/**
 * The working directory of a stdio server: never the project directory. Relative paths resolve
 * under the host's default working directory (`clat` passes its CLAT home) and may not leave it,
 * not even through a symlink.
 * @module
 */
import { mkdir, realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** The deepest existing directory on the way from `base` to `path`. */
async function existingAncestor(path: string, base: string): Promise<string> {
  let current = path;
  while (
    current !== base &&
    !(await stat(current).then(
      () => true,
      () => false,
    ))
  ) {
    current = dirname(current);
  }
  return current;
}

/** The real path of `path`, or a throw when it lies outside `realBase`. */
async function assertInsideBase(path: string, realBase: string): Promise<string> {
  const real = await realpath(path);
  if (!isInside(real, realBase)) {
    throw new Error(`it resolves through a symlink to ${real}, outside ${realBase}`);
  }
  return real;
}

/**
 * The server's working directory: never the project directory. A relative path resolves under
 * `defaultCwd` and may not leave it (`../p` throws); absolute and `~/` paths are taken as given.
 */
export function resolveServerCwd(cwd: string | undefined, defaultCwd: string): string {
  if (cwd === undefined) return defaultCwd;
  if (cwd === '~' || cwd.startsWith('~/')) return join(homedir(), cwd.slice(1));
  if (isAbsolute(cwd)) return cwd;
  const resolved = resolve(defaultCwd, cwd);
  if (!isInside(resolved, defaultCwd)) {
    throw new Error(`relative cwd ${JSON.stringify(cwd)} leaves ${defaultCwd}, its base directory`);
  }
  return resolved;
}

/**
 * Resolves and prepares the server's working directory under `defaultCwd` (created 0700 when it
 * is `defaultCwd` itself or a relative path); throws why it is unusable.
 */
export async function prepareServerCwd(
  configured: string | undefined,
  defaultCwd: string,
): Promise<string> {
  let cwd = resolveServerCwd(configured, defaultCwd);
  const relativeCwd =
    configured !== undefined && !isAbsolute(configured) && !configured.startsWith('~');
  if (cwd === defaultCwd) {
    await mkdir(cwd, { recursive: true, mode: 0o700 });
    // A recursive mkdir that succeeds leaves a directory there (an existing file, or a link to
    // one, fails with EEXIST): no stat after it, one file-system round trip less per spawn.
    if (!relativeCwd) return cwd;
  }
  if (relativeCwd) {
    // A symlink under the base must not lead the server (or our mkdir) out of it, into the
    // project: check the part that exists before creating the rest, then the result.
    await mkdir(defaultCwd, { recursive: true, mode: 0o700 });
    const realBase = await realpath(defaultCwd);
    await assertInsideBase(await existingAncestor(cwd, defaultCwd), realBase);
    await mkdir(cwd, { recursive: true, mode: 0o700 });
    cwd = await assertInsideBase(cwd, realBase);
  }
  const info = await stat(cwd);
  if (!info.isDirectory()) throw new Error('not a directory');
  return cwd;
}
