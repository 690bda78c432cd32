/**
 * `clat plugin new <dsh|wasm|mcp> <name> [dir]`: writes a plugin project that builds, tests and
 * installs outside this repository. Nothing is overwritten: the directory must be new or empty.
 * @module
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { LIMITS } from '@clat/kernel';
import { CliError, CliErrorCode } from '../errors.js';
import type { ScaffoldFiles } from './common-files.js';
import { dshTemplate } from './dsh-template.js';
import { mcpTemplate } from './mcp-template.js';
import { wasmTemplate } from './wasm-template.js';

export const SCAFFOLD_KINDS = ['dsh', 'wasm', 'mcp'] as const;
export type ScaffoldKind = (typeof SCAFFOLD_KINDS)[number];

/** An npm package name that is also a plugin id. */
export const SCAFFOLD_NAME_PATTERN = /^[a-z][a-z0-9-]{0,62}$/;

export interface ScaffoldResult {
  dir: string;
  files: string[];
  /** The tool's name in CLAT once installed. */
  tool: string;
}

export function isScaffoldKind(value: string): value is ScaffoldKind {
  return (SCAFFOLD_KINDS as readonly string[]).includes(value);
}

/** The tool's qualified name once the plugin is installed (`mcp_x_word_count`, `wasm_x_...`). */
export function scaffoldToolName(kind: ScaffoldKind, name: string): string {
  return `${kind === 'wasm' ? 'wasm' : 'mcp'}_${name.replaceAll('-', '_')}_word_count`;
}

export function scaffoldFiles(kind: ScaffoldKind, name: string): ScaffoldFiles {
  const tool = scaffoldToolName(kind, name);
  if (kind === 'dsh') return dshTemplate(name, tool);
  if (kind === 'wasm') return wasmTemplate(name, tool);
  return mcpTemplate(name, tool);
}

export async function writeScaffold(
  kind: ScaffoldKind,
  name: string,
  target: string,
): Promise<ScaffoldResult> {
  if (!SCAFFOLD_NAME_PATTERN.test(name)) {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      `clat plugin new: name ${JSON.stringify(name)} must be lowercase letters, digits and dashes, starting with a letter (at most 63)`,
    );
  }
  const tool = scaffoldToolName(kind, name);
  if (tool.length > LIMITS.toolNameChars) {
    // The registry would shorten it with a hash: the README and this command's output would
    // name a tool that does not exist.
    const most = name.length - (tool.length - LIMITS.toolNameChars);
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      `clat plugin new: name ${JSON.stringify(name)} is too long for a ${kind} plugin: its tool ${tool} would have ${tool.length} characters, over the ${LIMITS.toolNameChars} of a tool name; use at most ${most}`,
    );
  }
  const dir = resolve(target);
  const existing = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  if (existing.length > 0) {
    throw new CliError(
      CliErrorCode.CLI_TARGET_EXISTS,
      `clat plugin new: ${dir} already exists and is not empty; choose a new directory`,
    );
  }
  const files = scaffoldFiles(kind, name);
  for (const [path, text] of Object.entries(files)) {
    const file = join(dir, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, text, { flag: 'wx' });
  }
  return { dir, files: Object.keys(files).sort(), tool };
}
