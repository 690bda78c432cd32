import { readFile, stat } from 'node:fs/promises';
import { invalidArguments, onlyKnown, requiredString } from '../args.js';
import { writeFileAtomic } from '../atomic-write.js';
import { NativeToolError, NativeToolErrorCode } from '../errors.js';
import { NATIVE_LIMITS } from '../limits.js';
import { defineNativeTool } from '../native-tool.js';
import type { ToolEnv } from '../options.js';
import { resolveWriteTarget } from './write-file.js';

export interface EditFileOutput {
  path: string;
  replacements: 1;
  bytes: number;
}

export function editFileTool(env: ToolEnv) {
  return defineNativeTool({
    name: 'edit_file',
    description:
      'Replace exactly one occurrence of old_str with new_str in an existing text file inside the project. Fails when old_str is missing or occurs more than once; include more context to make it unique.',
    effect: 'write',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path, relative to the project root' },
        old_str: { type: 'string', minLength: 1, description: 'Exact text to replace' },
        new_str: { type: 'string', description: 'Replacement text' },
      },
      required: ['path', 'old_str', 'new_str'],
      additionalProperties: false,
    },
    async run(args, ctx): Promise<EditFileOutput> {
      const tool = 'edit_file';
      onlyKnown(tool, args, ['path', 'old_str', 'new_str']);
      const path = requiredString(tool, args, 'path');
      const oldStr = requiredString(tool, args, 'old_str');
      const newStr = requiredString(tool, args, 'new_str');
      if (oldStr === '') throw invalidArguments(tool, '"old_str" must not be empty');
      if (oldStr === newStr) throw invalidArguments(tool, '"new_str" must differ from "old_str"');
      const { target, shown, verifyDir } = await resolveWriteTarget(env, tool, path, ctx);
      if (!target.exists) {
        throw new NativeToolError(
          NativeToolErrorCode.NATIVE_NOT_FOUND,
          `${tool}: no such file: ${path}; use write_file to create it`,
        );
      }
      const size = (await stat(target.absolute)).size;
      if (size > NATIVE_LIMITS.writeMaxBytes) {
        throw new NativeToolError(
          NativeToolErrorCode.NATIVE_TOO_LARGE,
          `${tool}: ${path} is ${size} bytes, over the ${NATIVE_LIMITS.writeMaxBytes}-byte limit`,
        );
      }
      const text = await readFile(target.absolute, 'utf8');
      const first = text.indexOf(oldStr);
      if (first === -1) {
        throw new NativeToolError(
          NativeToolErrorCode.NATIVE_EDIT_NO_MATCH,
          `${tool}: "old_str" was not found in ${path}`,
        );
      }
      if (text.indexOf(oldStr, first + 1) !== -1) {
        throw new NativeToolError(
          NativeToolErrorCode.NATIVE_EDIT_AMBIGUOUS,
          `${tool}: "old_str" occurs more than once in ${path}; include more surrounding text`,
        );
      }
      const next = text.slice(0, first) + newStr + text.slice(first + oldStr.length);
      const bytes = Buffer.byteLength(next);
      if (bytes > NATIVE_LIMITS.writeMaxBytes) {
        throw new NativeToolError(
          NativeToolErrorCode.NATIVE_TOO_LARGE,
          `${tool}: the edited ${path} would be ${bytes} bytes, over the ${NATIVE_LIMITS.writeMaxBytes}-byte limit`,
        );
      }
      await writeFileAtomic(target.absolute, next, verifyDir === undefined ? {} : { verifyDir });
      return { path: shown, replacements: 1, bytes };
    },
  });
}
