/**
 * `~/.clat/approvals.json` (0600): "always allow this tool in this project" answers, each bound
 * to the tool's effect and its server's configuration digest, so a changed server (other
 * command, version, URL) or a changed effect asks again. Written atomically; a corrupt file is
 * reported by name and treated as empty for reading, never overwritten silently.
 * @module
 */

import { describeJsonSyntaxError } from '@clat/kernel';
import { type CommitEdit, editConfigFile } from '../config/config-lock.js';
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

interface ApprovalFile {
  version: 1;
  projects: Record<string, Record<string, Omit<SavedApproval, 'tool'>>>;
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class ApprovalStore {
  readonly file: string;

  constructor(file: string) {
    this.file = file;
  }

  /** Reads the file; missing is empty. Throws CLI_CONFIG_INVALID naming the file when corrupt. */
  async read(): Promise<ApprovalFile> {
    let text: string | undefined;
    try {
      text = readSmallFile(this.file);
    } catch (error) {
      throw new CliError(
        CliErrorCode.CLI_CONFIG_INVALID,
        `${this.file}: cannot be read: ${(error as Error).message}`,
      );
    }
    if (text === undefined) return { version: 1, projects: {} };
    let root: unknown;
    try {
      root = JSON.parse(text);
    } catch {
      throw new CliError(
        CliErrorCode.CLI_CONFIG_INVALID,
        `${this.file}: not valid JSON (${describeJsonSyntaxError(text)}); fix it or delete it to forget every saved approval`,
      );
    }
    if (!isMap(root) || root.version !== 1 || !isMap(root.projects)) {
      throw new CliError(
        CliErrorCode.CLI_CONFIG_INVALID,
        `${this.file}: (root): expected {"version":1,"projects":{…}}; fix it or delete it to forget every saved approval`,
      );
    }
    const projects: ApprovalFile['projects'] = Object.create(null);
    for (const [project, tools] of Object.entries(root.projects)) {
      if (!isMap(tools)) continue;
      const kept: Record<string, Omit<SavedApproval, 'tool'>> = Object.create(null);
      for (const [tool, saved] of Object.entries(tools)) {
        if (!isMap(saved)) continue;
        const { effect, digest, at } = saved;
        if (typeof effect === 'string' && typeof digest === 'string' && typeof at === 'string') {
          kept[tool] = { effect, digest, at };
        }
      }
      projects[project] = kept;
    }
    return { version: 1, projects };
  }

  async list(project: string | undefined): Promise<Array<SavedApproval & { project: string }>> {
    const file = await this.read();
    const out: Array<SavedApproval & { project: string }> = [];
    for (const [root, tools] of Object.entries(file.projects)) {
      if (project !== undefined && root !== project) continue;
      for (const [tool, saved] of Object.entries(tools))
        out.push({ project: root, tool, ...saved });
    }
    return out;
  }

  /** True when `tool` is saved for `project` with the same effect and digest. */
  async allows(project: string, tool: string, effect: string, digest: string): Promise<boolean> {
    const saved = (await this.read()).projects[project]?.[tool];
    return saved !== undefined && saved.effect === effect && saved.digest === digest;
  }

  async save(project: string, approval: SavedApproval): Promise<void> {
    await editConfigFile(this.file, async (commit) => {
      const file = await this.read();
      const tools = file.projects[project] ?? Object.create(null);
      tools[approval.tool] = { effect: approval.effect, digest: approval.digest, at: approval.at };
      file.projects[project] = tools;
      await commit(`${JSON.stringify(file, null, 2)}\n`, 0o600);
    });
  }

  /** Forgets one tool, a whole project, or (project undefined) everything; returns the count. */
  async reset(project: string | undefined, tool?: string): Promise<number> {
    return editConfigFile(this.file, (commit) => this.#reset(commit, project, tool));
  }

  async #reset(
    commit: CommitEdit,
    project: string | undefined,
    tool: string | undefined,
  ): Promise<number> {
    const file = await this.read();
    let removed = 0;
    for (const [root, tools] of Object.entries(file.projects)) {
      if (project !== undefined && root !== project) continue;
      for (const name of Object.keys(tools)) {
        if (tool !== undefined && name !== tool) continue;
        delete tools[name];
        removed += 1;
      }
      if (Object.keys(tools).length === 0) delete file.projects[root];
    }
    if (removed > 0) await commit(`${JSON.stringify(file, null, 2)}\n`, 0o600);
    return removed;
  }
}
