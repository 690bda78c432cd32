/**
 * @clat/native-tools: CLAT's native project tools as kernel `Tool`s, behind one project path
 * fence. Register them in the ToolRegistry; plugins reach the six allowlisted ones through the
 * PluginHostBridge (`io.artec.clat/tools/call`), always via the pipeline.
 * @module
 */
import type { Tool } from '@clat/kernel';
import type { NativeToolsOptions, ToolEnv } from './options.js';
import { ProjectFence } from './project-fence.js';
import { askUserTool } from './tools/ask-user.js';
import { editFileTool } from './tools/edit-file.js';
import { listFilesTool } from './tools/list-files.js';
import { readFileTool } from './tools/read-file.js';
import { runCommandTool } from './tools/run-command.js';
import { searchTool } from './tools/search.js';
import { writeFileTool } from './tools/write-file.js';

export {
  /** @public the options parameter of writeFileAtomic */
  type AtomicWriteOptions,
  writeFileAtomic,
} from './atomic-write.js';
/** @public the tools' error class and the codes callers switch on (README "Exports") */
export { NativeToolError, NativeToolErrorCode } from './errors.js';
/** @public the bounds the tools enforce, for hosts that show or check them (README "Exports") */
export { NATIVE_LIMITS } from './limits.js';
export type { NativeToolsOptions } from './options.js';
/** @public a tool's structured result (`ToolResult.structured`) */
export type { AskUserOutput } from './tools/ask-user.js';
/** @public a tool's structured result (`ToolResult.structured`) */
export type { EditFileOutput } from './tools/edit-file.js';
/** @public a tool's structured result (`ToolResult.structured`) */
export type { EntryKind, ListFilesOutput } from './tools/list-files.js';
/** @public a tool's structured result (`ToolResult.structured`) */
export type { ReadFileOutput } from './tools/read-file.js';
/** @public a tool's structured result (`ToolResult.structured`) */
export type { RunCommandOutput } from './tools/run-command.js';
/** @public a tool's structured result (`ToolResult.structured`) */
export type { SearchMatch, SearchOutput } from './tools/search.js';
/** @public a tool's structured result (`ToolResult.structured`) */
export type { WriteFileOutput } from './tools/write-file.js';

/** Names of every tool `createNativeTools` returns, in order. */
export const NATIVE_TOOL_NAMES = [
  'list_files',
  'read_file',
  'search',
  'write_file',
  'edit_file',
  'run_command',
  'ask_user',
] as const;

/**
 * Creates the native tools for one project: list_files, read_file, search (read), write_file,
 * edit_file (write), run_command (execute) and ask_user (pure). Throws when `projectRoot` is
 * not absolute.
 */
export function createNativeTools(options: NativeToolsOptions): Tool[] {
  const env: ToolEnv = { fence: new ProjectFence(options.projectRoot), options };
  return [
    listFilesTool(env),
    readFileTool(env),
    searchTool(env),
    writeFileTool(env),
    editFileTool(env),
    runCommandTool(env),
    askUserTool(),
  ];
}
