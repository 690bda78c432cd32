/**
 * Write access of a WASM plugin: which directories its preopens make writable in each permission
 * mode, decided by saved and session grants, and rebuilding the instance when that changes.
 * @module
 */
import { basename } from 'node:path';
import type { PermissionMode } from '@clat/kernel';
import type { WasmGrantStore } from './grants.js';
import type { Preopen } from './guest-host-contract.js';
import type { JcoGuestHost } from './jco-guest-host.js';

/** The guest's name for the project directory preopen. */
export const PROJECT_PREOPEN = 'project';

export interface WriteAccess {
  sha256: string;
  /** The mode the preopens were last built for (null: no run). */
  mode: PermissionMode | null;
  /** Directory sets allowed by the user during this process. */
  sessionGrants: string[][];
  /** The directories a write grant covers in `mode`: the project, plus `dirs` in Full Access. */
  requestedDirs(mode: PermissionMode | null): string[];
  granted(dirs: readonly string[]): boolean;
  /** Rebuilds the instance if the preopens for `mode` differ from the current ones. */
  apply(mode: PermissionMode | null): Promise<void>;
}

/**
 * Guest names of the extra directories: the basename with characters outside `[A-Za-z0-9_]` as
 * `-`, trimmed of `-`; `dirN` (N = its index) when that is empty or already taken.
 */
export function guestDirNames(dirs: readonly string[]): string[] {
  const taken = new Set([PROJECT_PREOPEN]);
  return dirs.map((dir, index) => {
    let name = basename(dir)
      .replace(/[^A-Za-z0-9_]/g, '-')
      .replace(/^-+|-+$/g, '');
    for (let n = index; name === '' || taken.has(name); n++) name = `dir${n}`;
    taken.add(name);
    return name;
  });
}

export function createWriteAccess(options: {
  name: string;
  sha256: string;
  projectRoot: string;
  dirs: string[];
  grants: WasmGrantStore | undefined;
  guest: JcoGuestHost;
  onChange: (writable: boolean) => void;
}): WriteAccess {
  const { name, sha256, projectRoot, dirs, grants, guest } = options;
  const guestNames = guestDirNames(dirs);
  const access: WriteAccess = {
    sha256,
    mode: null,
    sessionGrants: [],
    requestedDirs: (mode) =>
      mode === 'full-access' ? [projectRoot, ...dirs].sort() : [projectRoot],
    granted: (wanted) =>
      grants?.covers(name, sha256, wanted) === true ||
      access.sessionGrants.some((set) => wanted.every((dir) => set.includes(dir))),
    async apply(mode) {
      access.mode = mode;
      let writable: string[] = [];
      if (mode !== 'read-only') {
        const wanted = access.requestedDirs(mode);
        if (access.granted(wanted)) writable = wanted;
        else if (access.granted([projectRoot])) writable = [projectRoot];
      }
      const next: Preopen[] = [
        {
          guestPath: PROJECT_PREOPEN,
          hostPath: projectRoot,
          writable: writable.includes(projectRoot),
        },
        ...dirs
          .filter((dir) => writable.includes(dir))
          .map((dir) => ({
            guestPath: guestNames[dirs.indexOf(dir)] as string,
            hostPath: dir,
            writable: true,
          })),
      ];
      if (JSON.stringify(next) !== JSON.stringify(guest.preopens)) await guest.setPreopens(next);
      options.onChange(next.some((preopen) => preopen.writable));
    },
  };
  return access;
}
