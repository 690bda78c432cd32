/**
 * `~/.clat/config.json`: the model provider (an OpenAI-compatible chat-completions endpoint) and
 * CLI defaults. The API key is resolved from the environment or the file and never printed.
 * @module
 */
import { describeJsonSyntaxError, isPermissionMode, type PermissionMode } from '@clat/kernel';
import { type ResolvedProviderConfig, resolveProviderConfig } from '@clat/provider-openai';
import { CliError, CliErrorCode } from '../errors.js';
import { cannotReadError } from './cannot-read.js';
import { readSmallFile } from './read-small-file.js';

export interface UserConfig {
  file: string;
  /** Absent when config.json has no `provider` section, or a usable one (see `issues`). */
  provider: ResolvedProviderConfig | undefined;
  /** Default permission mode of new runs. */
  mode: PermissionMode | undefined;
  /**
   * What kept config.json from being used, one `<file>: <field>: <problem>` line each: a file
   * that cannot be read or parsed, a bad `mode`, a bad `provider` (a field a newer CLAT writes,
   * a key variable not exported in this shell). Only what talks to the model refuses over them.
   */
  issues: string[];
  /** Those of `issues` that keep the model from being used (the file's own, the provider's). */
  modelIssues: string[];
  /** The file could not be read or parsed, or its `mode` is invalid: the mode it sets is unknown. */
  modeUnknown: boolean;
}

/** config.json as far as it can be used; its problems are returned in `issues`, never thrown. */
export async function readUserConfig(file: string, env: NodeJS.ProcessEnv): Promise<UserConfig> {
  const unusable = (issue: string): UserConfig => ({
    file,
    provider: undefined,
    mode: undefined,
    issues: [issue],
    modelIssues: [issue],
    modeUnknown: true,
  });
  let text: string | undefined;
  try {
    text = readSmallFile(file);
  } catch (error) {
    return unusable(cannotReadError(file, error).message);
  }
  if (text === undefined) {
    return {
      file,
      provider: undefined,
      mode: undefined,
      issues: [],
      modelIssues: [],
      modeUnknown: false,
    };
  }
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch {
    return unusable(`${file}: not valid JSON (${describeJsonSyntaxError(text)})`);
  }
  if (typeof root !== 'object' || root === null || Array.isArray(root)) {
    return unusable(`${file}: (root): must be a JSON object`);
  }
  const map = root as Record<string, unknown>;
  const issues: string[] = [];
  let mode: PermissionMode | undefined;
  let modeUnknown = false;
  if (map.mode !== undefined) {
    if (isPermissionMode(map.mode)) mode = map.mode;
    else {
      issues.push(`${file}: mode: must be one of read-only, project-write, full-access`);
      modeUnknown = true;
    }
  }
  let provider: ResolvedProviderConfig | undefined;
  const modelIssues: string[] = [];
  if (map.provider !== undefined) {
    const resolved = resolveProviderConfig(file, map.provider, env);
    if ('issues' in resolved) {
      modelIssues.push(
        ...resolved.issues.map((issue) => `${issue.file}: ${issue.path}: ${issue.message}`),
      );
      issues.push(...modelIssues);
    } else provider = resolved.config;
  }
  return { file, provider, mode, issues, modelIssues, modeUnknown };
}

/**
 * config.json for a command that talks to the model: any problem in it is a CLI_CONFIG_INVALID
 * error (unknown provider fields included, so a typo in one is named, not silently ignored).
 */
export async function loadUserConfig(file: string, env: NodeJS.ProcessEnv): Promise<UserConfig> {
  const config = await readUserConfig(file, env);
  throwUserConfigIssues(config);
  return config;
}

/** Throws the problems of `config`, if any, as one CLI_CONFIG_INVALID error. */
export function throwUserConfigIssues(config: UserConfig): void {
  if (config.issues.length > 0) {
    throw new CliError(CliErrorCode.CLI_CONFIG_INVALID, config.issues.join('\n'));
  }
}
