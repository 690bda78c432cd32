/**
 * `~/.clat/approvals.json` (0600): "always allow this tool in this project" answers, each bound
 * to the tool's effect and its server's configuration digest, so a changed server (other
 * command, version, URL) or a changed effect asks again. Written atomically under the config
 * lock; a corrupt file is reported by name and treated as empty for reading, never overwritten
 * silently.
 * @module
 */

import { describeJsonSyntaxError } from '@clat/kernel';
import { type CommitEdit, editConfigFile } from '../config/config-lock.js';
import { findDuplicateKeys } from '../config/duplicate-keys.js';
import {
  DEFAULT_JSON_STYLE,
  formatJson,
  type JsonStyle,
  jsonStyleOf,
} from '../config/json-style.js';
import { readSmallFile } from '../config/read-small-file.js';
import { CliError, CliErrorCode } from '../errors.js';

export interface SavedApproval {
  tool: string;
  effect: string;
  /** `sha256:<hex>` of the server configuration the answer was given for. */
  digest: string;
  /** ISO time of the answer. */
  at: string;
}

/** The file format this CLAT reads and writes. */
const FORMAT_VERSION = 1;

type JsonMap = Record<string, unknown>;

/** An entry of the file this CLAT cannot read: kept in the file, never used to allow a call. */
export interface UnreadableApproval {
  project: string;
  /** Undefined when the whole project's value is no object of approvals. */
  tool?: string;
}

export interface ApprovalListing {
  approvals: Array<SavedApproval & { project: string }>;
  unreadable: UnreadableApproval[];
}

/**
 * The parsed file. Edits change it in place and write it back whole in its own layout, so what
 * this CLAT does not know (a newer CLAT's fields or entries, root fields, a person's notes, other
 * projects) stays as it was.
 */
interface ApprovalDocument {
  root: JsonMap;
  projects: JsonMap;
  style: JsonStyle;
  /** The file's text ('' for a new file). */
  text: string;
}

function isMap(value: unknown): value is JsonMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Own keys only: a project or tool named `__proto__` is a key like any other. */
function ownMap(map: JsonMap, key: string): JsonMap | undefined {
  if (!Object.hasOwn(map, key)) return undefined;
  const value = map[key];
  return isMap(value) ? value : undefined;
}

function setOwn(map: JsonMap, key: string, value: unknown): void {
  Object.defineProperty(map, key, { value, writable: true, enumerable: true, configurable: true });
}

/** The answer an entry holds, or undefined when it is not one this CLAT can read. */
function approvalOf(saved: unknown): Omit<SavedApproval, 'tool'> | undefined {
  if (!isMap(saved)) return undefined;
  const { effect, digest, at } = saved;
  return typeof effect === 'string' && typeof digest === 'string' && typeof at === 'string'
    ? { effect, digest, at }
    : undefined;
}

function emptyDocument(): ApprovalDocument {
  const projects: JsonMap = {};
  return {
    root: { version: FORMAT_VERSION, projects },
    projects,
    style: DEFAULT_JSON_STYLE,
    text: '',
  };
}

export class ApprovalStore {
  readonly file: string;

  constructor(file: string) {
    this.file = file;
  }

  /**
   * Reads the file; missing is undefined. Throws CLI_CONFIG_INVALID naming the file when it is
   * corrupt or of a newer format.
   */
  async #load(): Promise<ApprovalDocument | undefined> {
    let text: string | undefined;
    try {
      text = readSmallFile(this.file);
    } catch (error) {
      throw new CliError(
        CliErrorCode.CLI_CONFIG_INVALID,
        `${this.file}: cannot be read: ${(error as Error).message}`,
      );
    }
    if (text === undefined) return undefined;
    let root: unknown;
    try {
      root = JSON.parse(text);
    } catch {
      throw new CliError(
        CliErrorCode.CLI_CONFIG_INVALID,
        `${this.file}: not valid JSON (${describeJsonSyntaxError(text)}); fix it or delete it to forget every saved approval`,
      );
    }
    const version = isMap(root) ? root.version : undefined;
    if (typeof version === 'number' && Number.isInteger(version) && version > FORMAT_VERSION) {
      // Its entries may mean more than this CLAT knows (a limit, an expiry): neither applied
      // nor rewritten with what this CLAT would make of them.
      throw new CliError(
        CliErrorCode.CLI_CONFIG_INVALID,
        `${this.file}: "version": ${version} was written by a newer CLAT, which this one (format ${FORMAT_VERSION}) cannot read or change; update CLAT to use the approvals saved there`,
      );
    }
    if (!isMap(root) || version !== FORMAT_VERSION || !isMap(root.projects)) {
      throw new CliError(
        CliErrorCode.CLI_CONFIG_INVALID,
        `${this.file}: (root): expected {"version":1,"projects":{…}}; fix it or delete it to forget every saved approval`,
      );
    }
    return { root, projects: root.projects, style: jsonStyleOf(text), text };
  }

  /** Writes the edited document back in the file's own layout. */
  async #write(commit: CommitEdit, document: ApprovalDocument): Promise<void> {
    // JSON.parse kept the last of a repeated key: writing the file back would drop the others.
    const duplicates = findDuplicateKeys(document.text);
    if (duplicates.length > 0) {
      throw new CliError(
        CliErrorCode.CLI_CONFIG_INVALID,
        `${this.file}: duplicate key ${duplicates.join(', ')}; remove the duplicates by hand, so no approval is lost when CLAT writes the file`,
      );
    }
    await commit(formatJson(document.root, document.style), 0o600);
  }

  /** The saved approvals (of `project`, or of every project), and the entries it cannot read. */
  async list(project: string | undefined): Promise<ApprovalListing> {
    const listing: ApprovalListing = { approvals: [], unreadable: [] };
    const document = await this.#load();
    if (document === undefined) return listing;
    for (const [root, tools] of Object.entries(document.projects)) {
      if (project !== undefined && root !== project) continue;
      if (!isMap(tools)) {
        listing.unreadable.push({ project: root });
        continue;
      }
      for (const [tool, saved] of Object.entries(tools)) {
        const approval = approvalOf(saved);
        if (approval === undefined) listing.unreadable.push({ project: root, tool });
        else listing.approvals.push({ project: root, tool, ...approval });
      }
    }
    return listing;
  }

  /** True when `tool` is saved for `project` with the same effect and digest. */
  async allows(project: string, tool: string, effect: string, digest: string): Promise<boolean> {
    const document = await this.#load();
    const tools = document === undefined ? undefined : ownMap(document.projects, project);
    const saved =
      tools === undefined || !Object.hasOwn(tools, tool) ? undefined : approvalOf(tools[tool]);
    return saved !== undefined && saved.effect === effect && saved.digest === digest;
  }

  /** Saves (or replaces) one tool's answer for `project`; every other entry stays as it is. */
  async save(project: string, approval: SavedApproval): Promise<void> {
    await editConfigFile(this.file, async (commit) => {
      const document = (await this.#load()) ?? emptyDocument();
      let tools = ownMap(document.projects, project);
      if (tools === undefined) {
        if (Object.hasOwn(document.projects, project)) {
          throw new CliError(
            CliErrorCode.CLI_CONFIG_INVALID,
            `${this.file}: projects[${JSON.stringify(project)}] is not an object of approvals; fix or remove that entry to save approvals for the project`,
          );
        }
        tools = {};
        setOwn(document.projects, project, tools);
      }
      setOwn(tools, approval.tool, {
        effect: approval.effect,
        digest: approval.digest,
        at: approval.at,
      });
      await this.#write(commit, document);
    });
  }

  /**
   * Forgets one tool, a whole project, or (project undefined) everything, including entries this
   * CLAT cannot read; other projects and fields stay. Returns the count.
   */
  async reset(project: string | undefined, tool?: string): Promise<number> {
    return editConfigFile(this.file, (commit) => this.#reset(commit, project, tool));
  }

  async #reset(
    commit: CommitEdit,
    project: string | undefined,
    tool: string | undefined,
  ): Promise<number> {
    const document = await this.#load();
    if (document === undefined) return 0;
    let removed = 0;
    for (const [root, tools] of Object.entries(document.projects)) {
      if (project !== undefined && root !== project) continue;
      if (!isMap(tools)) continue;
      for (const name of Object.keys(tools)) {
        if (tool !== undefined && name !== tool) continue;
        delete tools[name];
        removed += 1;
      }
      if (Object.keys(tools).length === 0) delete document.projects[root];
    }
    if (removed > 0) await this.#write(commit, document);
    return removed;
  }
}
