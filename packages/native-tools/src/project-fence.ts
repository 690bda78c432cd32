/**
 * The project path fence. Model calls may read absolute paths anywhere and write only inside the
 * project (absolute writes only when the host allows them, i.e. Full Access). Plugin calls
 * (`requestedBy` set) get the stricter fence: every path must resolve inside the project. `..`
 * segments are refused in relative paths, and symlinks are resolved so none leads out.
 * @module
 */
import { lstat, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { NativeToolError, NativeToolErrorCode } from './errors.js';

/** A path the tool may operate on. */
export interface FencedPath {
  /** Real, absolute path to operate on (symlinks resolved for existing paths). */
  absolute: string;
  /** What results show: project-relative with `/` separators when inside, else absolute. */
  display: string;
  /** False when the path does not exist yet (writes only). */
  exists: boolean;
}

export interface FenceOptions {
  /** Plugin call: the stricter fence. */
  strict: boolean;
}

function outside(path: string, why: string): NativeToolError {
  return new NativeToolError(
    NativeToolErrorCode.NATIVE_PATH_OUTSIDE_PROJECT,
    `path ${JSON.stringify(path)} is outside the project: ${why}`,
  );
}

function hasDotDot(path: string): boolean {
  return path.split(/[\\/]+/).includes('..');
}

function isInside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root.endsWith(sep) ? root : root + sep);
}

function errnoCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

export class ProjectFence {
  readonly root: string;
  #realRoot: Promise<string> | undefined;

  /** `root` must be an absolute path to an existing directory. */
  constructor(root: string) {
    if (!isAbsolute(root))
      throw new TypeError(`project root ${JSON.stringify(root)} must be absolute`);
    this.root = resolve(root);
  }

  realRoot(): Promise<string> {
    this.#realRoot ??= realpath(this.root);
    return this.#realRoot;
  }

  /** Project-relative display form (`/` separators), or the absolute path when outside. */
  async display(absolute: string): Promise<string> {
    const realRoot = await this.realRoot();
    for (const base of [realRoot, this.root]) {
      if (isInside(base, absolute)) return relative(base, absolute).split(sep).join('/') || '.';
    }
    return absolute;
  }

  #checkShape(path: string): void {
    if (path === '') {
      throw new NativeToolError(
        NativeToolErrorCode.NATIVE_INVALID_ARGUMENTS,
        'path must not be empty',
      );
    }
    if (path.includes('\0')) {
      throw new NativeToolError(
        NativeToolErrorCode.NATIVE_INVALID_ARGUMENTS,
        'path must not contain NUL',
      );
    }
  }

  /** Resolves a path to read. It must exist. */
  async resolveRead(path: string, options: FenceOptions): Promise<FencedPath> {
    this.#checkShape(path);
    const absoluteInput = isAbsolute(path);
    if (hasDotDot(path) && (!absoluteInput || options.strict))
      throw outside(path, 'it contains ".."');
    const realRoot = await this.realRoot();
    const candidate = absoluteInput ? resolve(path) : join(this.root, path);
    if (
      absoluteInput &&
      options.strict &&
      !isInside(this.root, candidate) &&
      !isInside(realRoot, candidate)
    ) {
      throw outside(path, 'plugins may only read inside the project');
    }
    let real: string;
    try {
      real = await realpath(candidate);
    } catch (error) {
      if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') {
        throw new NativeToolError(
          NativeToolErrorCode.NATIVE_NOT_FOUND,
          `no such file or directory: ${path}`,
        );
      }
      throw new NativeToolError(
        NativeToolErrorCode.NATIVE_IO_FAILED,
        `cannot resolve ${path}: ${(error as Error).message}`,
      );
    }
    if ((!absoluteInput || options.strict) && !isInside(realRoot, real)) {
      throw outside(path, 'a symlink leads out of it');
    }
    return { absolute: real, display: await this.display(real), exists: true };
  }

  /**
   * For a write target inside the project, a check of the real directory the write finally lands
   * in (see `writeFileAtomic`'s `verifyDir`): a directory swapped for a symlink after
   * `resolveWrite` must not carry the write out. Undefined for targets outside (Full Access).
   */
  async landingGuard(
    target: FencedPath,
    path: string,
  ): Promise<((realDir: string) => void) | undefined> {
    const realRoot = await this.realRoot();
    if (!isInside(realRoot, target.absolute)) return undefined;
    return (realDir) => {
      if (!isInside(realRoot, realDir)) {
        throw outside(path, `its directory now resolves to ${realDir} (swapped while writing)`);
      }
    };
  }

  /**
   * Resolves a path to write. Relative paths land under the root; absolute paths must be inside
   * the project unless `allowAbsolute` (Full Access, model calls only). An existing symlink is
   * followed to its real target, which must stay inside; the nearest existing ancestor of a new
   * path must also resolve inside.
   */
  async resolveWrite(
    path: string,
    options: FenceOptions & { allowAbsolute: boolean },
  ): Promise<FencedPath> {
    this.#checkShape(path);
    if (hasDotDot(path)) throw outside(path, 'it contains ".."');
    const realRoot = await this.realRoot();
    const absoluteInput = isAbsolute(path);
    const candidate = absoluteInput ? resolve(path) : join(this.root, path);
    const insideLexically = isInside(this.root, candidate) || isInside(realRoot, candidate);
    if (absoluteInput && !insideLexically) {
      if (options.strict) throw outside(path, 'plugins may only write inside the project');
      if (!options.allowAbsolute) {
        throw outside(
          path,
          'writes outside the project need Full Access; use a project-relative path',
        );
      }
    }
    const fenced = !absoluteInput || options.strict || insideLexically;
    let info: Awaited<ReturnType<typeof lstat>> | undefined;
    try {
      info = await lstat(candidate);
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT' && errnoCode(error) !== 'ENOTDIR') {
        throw new NativeToolError(
          NativeToolErrorCode.NATIVE_IO_FAILED,
          `cannot inspect ${path}: ${(error as Error).message}`,
        );
      }
    }
    if (info !== undefined) {
      let real: string;
      try {
        real = await realpath(candidate);
      } catch {
        throw outside(path, 'it is a dangling symlink');
      }
      if (fenced && !isInside(realRoot, real)) throw outside(path, 'a symlink leads out of it');
      return { absolute: real, display: await this.display(real), exists: true };
    }
    // New path: the nearest existing ancestor decides where it really lands.
    let ancestor = dirname(candidate);
    const missing: string[] = [candidate.slice(ancestor.length + 1)];
    for (;;) {
      try {
        const realAncestor = await realpath(ancestor);
        if (fenced && !isInside(realRoot, realAncestor))
          throw outside(path, 'a symlink leads out of it');
        const absolute = join(realAncestor, ...missing.reverse());
        return { absolute, display: await this.display(absolute), exists: false };
      } catch (error) {
        if (error instanceof NativeToolError) throw error;
        if (errnoCode(error) !== 'ENOENT') {
          throw new NativeToolError(
            NativeToolErrorCode.NATIVE_IO_FAILED,
            `cannot resolve ${path}: ${(error as Error).message}`,
          );
        }
        if (
          await lstat(ancestor).then(
            () => true,
            () => false,
          )
        ) {
          throw outside(path, 'it goes through a dangling symlink');
        }
        const parent = dirname(ancestor);
        if (parent === ancestor)
          throw new NativeToolError(NativeToolErrorCode.NATIVE_IO_FAILED, `cannot resolve ${path}`);
        missing.push(ancestor.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
        ancestor = parent;
      }
    }
  }
}
