/**
 * Write grants (`~/.clat/plugin-grants.json`): a plugin gets writable preopens only with a
 * grant bound to its name, its component's SHA-256 and the exact set of directories. A corrupt
 * or unknown-version file means no grants (read-only), never a crash.
 * @module
 */
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { parseSha256 } from '@clat/kernel';
import { writeFileAtomic } from '@clat/node-files';
import * as z from 'zod';
import { WasmError, WasmErrorCode } from './errors.js';

export const GRANTS_FILE = 'plugin-grants.json';
const GRANTS_VERSION = 1;

export interface WasmGrant {
  plugin: string;
  /** Lowercase hex SHA-256 of the component. */
  sha256: string;
  /** Sorted absolute directories. */
  dirs: string[];
}

const GrantsFileSchema = z.object({
  version: z.literal(GRANTS_VERSION),
  grants: z.array(
    z.object({
      plugin: z.string().min(1),
      sha256: z.string(),
      dirs: z.array(z.string().refine(isAbsolute, 'must be an absolute path')),
    }),
  ),
});

/** The grants file of a CLAT home. */
export function grantsPath(clatHome: string): string {
  return join(clatHome, GRANTS_FILE);
}

function sortedUnique(dirs: readonly string[]): string[] {
  return [...new Set(dirs)].sort();
}

/** Writes `text` to `path` atomically (0600, synced), creating the CLAT home when missing. */
async function writeAtomic(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFileAtomic(path, text, { mode: 0o600 });
}

export class WasmGrantStore {
  readonly path: string;
  /** Why the file was ignored (corrupt, unknown version), if it was. */
  readonly warning: string | undefined;
  #grants: WasmGrant[];

  private constructor(path: string, grants: WasmGrant[], warning: string | undefined) {
    this.path = path;
    this.#grants = grants;
    this.warning = warning;
  }

  /** Loads the grants file; a missing file is empty, an invalid one is ignored with a warning. */
  static async load(path: string): Promise<WasmGrantStore> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        return new WasmGrantStore(path, [], undefined);
      }
      return new WasmGrantStore(path, [], `${path} cannot be read; no write grants apply`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return new WasmGrantStore(path, [], `${path} is not valid JSON; no write grants apply`);
    }
    const parsed = GrantsFileSchema.safeParse(json);
    if (!parsed.success) {
      return new WasmGrantStore(
        path,
        [],
        `${path} is not a version ${GRANTS_VERSION} grants file; no write grants apply`,
      );
    }
    const grants: WasmGrant[] = [];
    for (const grant of parsed.data.grants) {
      const sha256 = parseSha256(grant.sha256);
      if (sha256 !== undefined) {
        grants.push({ plugin: grant.plugin, sha256, dirs: sortedUnique(grant.dirs) });
      }
    }
    return new WasmGrantStore(path, grants, undefined);
  }

  list(): WasmGrant[] {
    return this.#grants.map((grant) => ({ ...grant, dirs: [...grant.dirs] }));
  }

  /** True when a grant for this plugin and digest covers every directory (exact strings). */
  covers(plugin: string, sha256: string, dirs: readonly string[]): boolean {
    const digest = parseSha256(sha256);
    const grant = this.#grants.find((entry) => entry.plugin === plugin && entry.sha256 === digest);
    return grant !== undefined && dirs.every((dir) => grant.dirs.includes(dir));
  }

  /** Records a grant (merged with an existing one for the same plugin and digest) and saves. */
  async grant(plugin: string, sha256: string, dirs: readonly string[]): Promise<void> {
    const digest = parseSha256(sha256);
    if (digest === undefined) {
      throw new WasmError(
        WasmErrorCode.WASM_CONFIG_INVALID,
        `cannot grant ${plugin}: ${JSON.stringify(sha256)} is not a SHA-256 digest`,
      );
    }
    const relative = dirs.find((dir) => !isAbsolute(dir));
    if (relative !== undefined) {
      throw new WasmError(
        WasmErrorCode.WASM_CONFIG_INVALID,
        `cannot grant ${plugin}: directory ${JSON.stringify(relative)} is not absolute`,
      );
    }
    const existing = this.#grants.find(
      (entry) => entry.plugin === plugin && entry.sha256 === digest,
    );
    if (existing !== undefined) existing.dirs = sortedUnique([...existing.dirs, ...dirs]);
    else this.#grants.push({ plugin, sha256: digest, dirs: sortedUnique(dirs) });
    await this.#save();
  }

  /** Removes every grant of a plugin (any digest) and saves. */
  async revoke(plugin: string): Promise<void> {
    this.#grants = this.#grants.filter((entry) => entry.plugin !== plugin);
    await this.#save();
  }

  async #save(): Promise<void> {
    const body = { version: GRANTS_VERSION, grants: this.#grants };
    await writeAtomic(this.path, `${JSON.stringify(body, null, 2)}\n`);
  }
}
