/**
 * The tools a component listed, remembered in its cache entry (`tools.json`) so that a later
 * mount with the same inputs registers them without starting the guest: a start costs a worker,
 * the instantiation and the guest's first run (about 150 ms and 70 MB for a componentize-js
 * guest), which a command that never calls the plugin need not pay. mount.ts starts such a guest
 * at its first call and compares the guest's own list with the remembered one.
 *
 * - A list is keyed by everything the guest can see while it lists: the component digest (the
 *   entry it lives in), the transpiler, the plugin's config, the manifest's capabilities, the
 *   preopened directories and the memory cap (an HMAC of them). Any change is a miss, and the
 *   guest lists again.
 * - Each list carries an HMAC under the cache key, like the entry's manifest: a list decides
 *   which tools exist and their effects, so whoever can write the cache but not read the key
 *   cannot forge one.
 * - Each list also carries the input schemas that did not compile when its tools were registered
 *   (register-tools.ts), under the same HMAC: a mount from the list skips those tools as the
 *   registration did, and compiles the other schemas at each tool's first call instead of at
 *   mount (Ajv's engine and code generation took about 25 ms of a `clat tools` start with the
 *   `wasm-summarize` example on the 2-core bench VM).
 * - Best effort both ways: an unreadable, forged or malformed file is a miss, and a failed write
 *   only costs the next mount a start.
 * @module
 */
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '@clat/node-files';
import { cacheKeyPath, loadCacheKey, macMatches, manifestMac } from './cache-key.js';
import { TRANSPILER_ID } from './component-cache.js';
import { componentDigest, type PrepareComponentOptions } from './component-file.js';
import type { GuestToolDefinition, Preopen } from './guest-host-contract.js';

const MEMO_FILE = 'tools.json';
// v2: each list carries its unusable input schemas.
const MEMO_VERSION = 'clat-wasm-tools/2';
/** Lists kept per component: one per project (or config) it was last mounted with. */
export const MAX_TOOL_LISTS = 8;
/** A larger list is not remembered (its guest lists at every mount); keeps the read small. */
const MAX_LIST_BYTES = 1024 * 1024;
const MAX_MEMO_BYTES = MAX_TOOL_LISTS * (MAX_LIST_BYTES + 1024);

/** What the guest can see while it lists its tools; see the module comment. */
export interface ToolListInputs {
  config: unknown;
  capabilities: unknown;
  preopens: readonly Preopen[];
  dirs: readonly string[];
  memoryLimitBytes: number;
}

/**
 * A list of tools as registering it found them: every definition the guest listed, and each input
 * schema text that is not a usable JSON Schema with why (Ajv's reason).
 */
export interface ToolList {
  tools: readonly GuestToolDefinition[];
  unusableSchemas: ReadonlyMap<string, string>;
}

interface StoredList {
  key: string;
  tools: GuestToolDefinition[];
  /** [schema text, reason] pairs, sorted by text. */
  unusable: [string, string][];
  mac: string;
}

/**
 * The key of one list: an HMAC of its inputs under the cache key, stored instead of them (a
 * config may hold secrets, and a plain digest of a short one could be guessed).
 */
export function toolListKey(macKey: Buffer, inputs: ToolListInputs): string {
  return manifestMac(macKey, [
    MEMO_VERSION,
    TRANSPILER_ID,
    inputs.config ?? null,
    inputs.capabilities ?? null,
    inputs.preopens.map((preopen) => [preopen.guestPath, preopen.hostPath, preopen.writable]),
    inputs.dirs,
    inputs.memoryLimitBytes,
  ]);
}

function listMac(
  macKey: Buffer,
  sha256: string,
  key: string,
  tools: unknown,
  unusable: unknown,
): string {
  return manifestMac(macKey, [MEMO_VERSION, sha256, key, tools, unusable]);
}

const isTextPair = (value: unknown): value is [string, string] =>
  Array.isArray(value) &&
  value.length === 2 &&
  typeof value[0] === 'string' &&
  typeof value[1] === 'string';

function isDefinition(value: unknown): value is GuestToolDefinition {
  if (value === null || typeof value !== 'object') return false;
  const definition = value as Record<string, unknown>;
  return (
    typeof definition.name === 'string' &&
    typeof definition.description === 'string' &&
    typeof definition.inputSchema === 'string' &&
    typeof definition.effect === 'string'
  );
}

/** The stored lists of an entry, authentic or not (checked per list by the reader). */
async function readLists(file: string): Promise<StoredList[]> {
  try {
    const handle = await open(file, 'r');
    let text: string;
    try {
      if ((await handle.stat()).size > MAX_MEMO_BYTES) return [];
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
    const parsed = JSON.parse(text) as { version?: unknown; lists?: unknown };
    if (parsed?.version !== MEMO_VERSION || !Array.isArray(parsed.lists)) return [];
    return parsed.lists.filter(
      (list): list is StoredList =>
        list !== null &&
        typeof list === 'object' &&
        typeof list.key === 'string' &&
        typeof list.mac === 'string' &&
        Array.isArray(list.tools) &&
        Array.isArray(list.unusable),
    );
  } catch {
    return [];
  }
}

const memoPath = (cacheDir: string, sha256: string) => join(cacheDir, sha256, MEMO_FILE);

/**
 * The list remembered for the component `sha256` under `key`, or undefined: none, or the list
 * is forged (its MAC does not verify under `macKey`) or malformed.
 */
export async function readToolList(
  cacheDir: string,
  sha256: string,
  macKey: Buffer,
  key: string,
): Promise<ToolList | undefined> {
  const list = (await readLists(memoPath(cacheDir, sha256))).find((stored) => stored.key === key);
  if (list === undefined || !list.tools.every(isDefinition) || !list.unusable.every(isTextPair)) {
    return undefined;
  }
  if (!macMatches(listMac(macKey, sha256, key, list.tools, list.unusable), list.mac)) {
    return undefined;
  }
  return { tools: list.tools, unusableSchemas: new Map(list.unusable) };
}

/**
 * Remembers `list` for the component `sha256` under `key` (newest first, at most
 * {@link MAX_TOOL_LISTS} lists), or forgets that key's list when `list` is undefined. Never
 * throws: without the entry directory (or on any error) nothing is remembered.
 */
export async function recordToolList(
  cacheDir: string,
  sha256: string,
  macKey: Buffer,
  key: string,
  list: ToolList | undefined,
): Promise<void> {
  const file = memoPath(cacheDir, sha256);
  const kept = (await readLists(file)).filter((stored) => stored.key !== key);
  const lists: StoredList[] = [];
  if (list !== undefined) {
    const tools = list.tools.map(({ name, description, inputSchema, effect }) => ({
      name,
      description,
      inputSchema,
      effect,
    }));
    const unusable = [...list.unusableSchemas].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    if (JSON.stringify([tools, unusable]).length <= MAX_LIST_BYTES) {
      const mac = listMac(macKey, sha256, key, tools, unusable);
      lists.push({ key, tools, unusable, mac });
    }
  }
  lists.push(...kept.slice(0, MAX_TOOL_LISTS - lists.length));
  try {
    // 0600, renamed into place; not synced: a lost memo only costs one guest start.
    await writeFileAtomic(file, `${JSON.stringify({ version: MEMO_VERSION, lists })}\n`, {
      mode: 0o600,
      sync: false,
    });
  } catch {
    // Not remembered: the next mount starts the guest to list its tools.
  }
}

/**
 * A mount's lookup: the cache key, the key of its inputs, and the list remembered under it for
 * the component's digest (undefined on a miss).
 */
export interface ToolListLookup {
  macKey: Buffer;
  key: string;
  remembered: RememberedTools | undefined;
}

/** A remembered list and the digest of the component it is for. */
export interface RememberedTools extends ToolList {
  sha256: string;
}

/**
 * Looks up the list remembered for `component` (its digest from its source record, else
 * hashed; a pin must match) mounted with `inputs`. Undefined when the cache key cannot be
 * loaded: nothing is remembered then. Any other failure is a miss, which the caller meets again,
 * and reports, when it prepares the component. Never rejects.
 */
export async function lookUpTools(
  component: PrepareComponentOptions,
  inputs: ToolListInputs,
): Promise<ToolListLookup | undefined> {
  const keying = loadCacheKey(component.keyPath ?? cacheKeyPath(component.cacheDir));
  let macKey: Buffer;
  try {
    macKey = await keying;
  } catch {
    return undefined;
  }
  const key = toolListKey(macKey, inputs);
  try {
    const sha256 = await componentDigest(component, keying);
    const list = await readToolList(component.cacheDir, sha256, macKey, key);
    return { macKey, key, remembered: list === undefined ? undefined : { sha256, ...list } };
  } catch {
    return { macKey, key, remembered: undefined };
  }
}
