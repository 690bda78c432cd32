/**
 * The working directory of a stdio server: never the project directory. Relative paths resolve
 * under the CLAT home and may not leave it, not even through a symlink.
 * @module
 */
import { mkdir, realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** `$CLAT_HOME` if set, else `~/.clat`. */
export function resolveClatHome(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.CLAT_HOME;
  return configured !== undefined && configured !== ''
    ? resolve(configured)
    : join(homedir(), '.clat');
}

function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** The deepest existing directory on the way from `home` to `path`. */
async function existingAncestor(path: string, home: string): Promise<string> {
  let current = path;
  while (
    current !== home &&
    !(await stat(current).then(
      () => true,
      () => false,
    ))
  ) {
    current = dirname(current);
  }
  return current;
}

/** The real path of `path`, or a throw when it lies outside `realHome`. */
async function assertInsideHome(path: string, realHome: string): Promise<string> {
  const real = await realpath(path);
  if (!isInside(real, realHome)) {
    throw new Error(`it resolves through a symlink to ${real}, outside the CLAT home`);
  }
  return real;
}

/**
 * The server's working directory: never the project directory. A relative path resolves under
 * the CLAT home and may not leave it (`../p` throws); absolute and `~/` paths are taken as given.
 */
export function resolveServerCwd(cwd: string | undefined, clatHome: string): string {
  if (cwd === undefined) return clatHome;
  if (cwd === '~' || cwd.startsWith('~/')) return join(homedir(), cwd.slice(1));
  if (isAbsolute(cwd)) return cwd;
  const resolved = resolve(clatHome, cwd);
  if (!isInside(resolved, clatHome)) {
    throw new Error(`relative cwd ${JSON.stringify(cwd)} leaves the CLAT home ${clatHome}`);
  }
  return resolved;
}

/**
 * Resolves and prepares the server's working directory under `home` (created 0700 when it is
 * the home or a relative path); throws why it is unusable.
 */
export async function prepareServerCwd(
  configured: string | undefined,
  home: string,
): Promise<string> {
  let cwd = resolveServerCwd(configured, home);
  const relativeCwd =
    configured !== undefined && !isAbsolute(configured) && !configured.startsWith('~');
  if (cwd === home) await mkdir(cwd, { recursive: true, mode: 0o700 });
  if (relativeCwd) {
    // A symlink under the home must not lead the server (or our mkdir) out of it, into the
    // project: check the part that exists before creating the rest, then the result.
    await mkdir(home, { recursive: true, mode: 0o700 });
    const realHome = await realpath(home);
    await assertInsideHome(await existingAncestor(cwd, home), realHome);
    await mkdir(cwd, { recursive: true, mode: 0o700 });
    cwd = await assertInsideHome(cwd, realHome);
  }
  const info = await stat(cwd);
  if (!info.isDirectory()) throw new Error('not a directory');
  return cwd;
}
