/**
 * What the plugin store holds when its registry.json is missing. A store that holds packages'
 * bytes, stored copies or secrets files was not empty: its registry was removed by hand or a
 * backup was restored without it. Read as an empty registry, the next store command's recovery
 * pruned every one of them (and every API key) for good; so such a store is refused instead,
 * naming what it holds and the two ways forward.
 * @module
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { shellWord } from '@clat/kernel';
import { PackagingError } from './errors.js';
import { SECRETS_DIR } from './plugin-secrets.js';

/** `<id>.<token>.json`, or `<id>.json` of older registries; temporary files start with a dot. */
const SECRETS_FILE = /^([a-z0-9][a-z0-9._-]*?)(?:\.[0-9a-f]{16})?\.json$/;

/** What a store without its registry holds. */
export interface UnlistedContents {
  /** The ids it holds anything of (artifacts, stored containers, secrets files), sorted. */
  ids: string[];
  /** Whether the secrets directory exists (then it is moved aside too). */
  secretsDir: boolean;
}

export async function unlistedPackages(root: string, clatHome: string): Promise<UnlistedContents> {
  const ids = new Set<string>();
  for (const dir of ['artifacts', 'containers']) {
    for (const name of await readdir(join(root, dir)).catch(() => [])) ids.add(name);
  }
  const secrets = await readdir(join(clatHome, SECRETS_DIR)).catch(() => undefined);
  for (const name of secrets ?? []) {
    const id = SECRETS_FILE.exec(name)?.[1];
    if (id !== undefined) ids.add(id);
  }
  return { ids: [...ids].sort(), secretsDir: secrets !== undefined };
}

/**
 * REGISTRY_MISSING: names the file, what the store holds, and both ways forward, each one that
 * works: a restored registry, or the store and secrets moved aside (nothing is deleted) and the
 * packages installed again, from the stored copies the move keeps.
 */
export function registryMissingError(
  file: string,
  root: string,
  clatHome: string,
  { ids, secretsDir }: UnlistedContents,
): PackagingError {
  const shown = `${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', …' : ''}`;
  const secrets = join(clatHome, SECRETS_DIR);
  const aside = `${root}.lost`;
  const move = `mv ${shellWord(root)} ${shellWord(aside)}${secretsDir ? ` && mv ${shellWord(secrets)} ${shellWord(`${secrets}.lost`)}` : ''}`;
  return new PackagingError(
    'REGISTRY_MISSING',
    `${file} is missing, but the plugin store holds ${ids.length} package(s) it does not list (${shown}); plugins are disabled and none of their files is removed: restore ${file} from a backup, or start over with "${move}" and install them again (each has a copy in ${join(aside, 'containers', '<id>')})`,
    { file, data: { ids: [...ids] } },
  );
}
