/**
 * `~/.clat/config.json`: the model provider (an OpenAI-compatible chat-completions endpoint) and
 * CLI defaults. The API key is resolved from the environment or the file and never printed.
 * @module
 */
import { describeJsonSyntaxError, isPermissionMode, type PermissionMode } from '@clat/kernel';
import { type ResolvedProviderConfig, resolveProviderConfig } from '@clat/provider-openai';
import { CliError, CliErrorCode } from '../errors.js';
import { readSmallFile } from './read-small-file.js';

export interface UserConfig {
  file: string;
  /** Absent when config.json has no `provider` section. */
  provider: ResolvedProviderConfig | undefined;
  /** Default permission mode of new runs. */
  mode: PermissionMode | undefined;
}

export async function loadUserConfig(file: string, env: NodeJS.ProcessEnv): Promise<UserConfig> {
  let text: string | undefined;
  try {
    text = readSmallFile(file);
  } catch (error) {
    throw new CliError(
      CliErrorCode.CLI_CONFIG_INVALID,
      `${file}: cannot be read: ${(error as Error).message}`,
    );
  }
  if (text === undefined) return { file, provider: undefined, mode: undefined };
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch {
    throw new CliError(
      CliErrorCode.CLI_CONFIG_INVALID,
      `${file}: not valid JSON (${describeJsonSyntaxError(text)})`,
    );
  }
  if (typeof root !== 'object' || root === null || Array.isArray(root)) {
    throw new CliError(CliErrorCode.CLI_CONFIG_INVALID, `${file}: (root): must be a JSON object`);
  }
  const map = root as Record<string, unknown>;
  let mode: PermissionMode | undefined;
  if (map.mode !== undefined) {
    if (!isPermissionMode(map.mode)) {
      throw new CliError(
        CliErrorCode.CLI_CONFIG_INVALID,
        `${file}: mode: must be one of read-only, project-write, full-access`,
      );
    }
    mode = map.mode;
  }
  if (map.provider === undefined) return { file, provider: undefined, mode };
  const resolved = resolveProviderConfig(file, map.provider, env);
  if ('issues' in resolved) {
    throw new CliError(
      CliErrorCode.CLI_CONFIG_INVALID,
      resolved.issues.map((issue) => `${issue.file}: ${issue.path}: ${issue.message}`).join('\n'),
    );
  }
  return { file, provider: resolved.config, mode };
}
