import { lstat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import type { ToolCallContext } from '@clat/kernel';
import { onlyKnown, requiredString } from '../args.js';
import { writeFileAtomic } from '../atomic-write.js';
import { NativeToolError, NativeToolErrorCode } from '../errors.js';
import { NATIVE_LIMITS } from '../limits.js';
import { defineNativeTool } from '../native-tool.js';
import { allowsAbsoluteWrites, isPluginCall, type ToolEnv } from '../options.js';
import type { FencedPath } from '../project-fence.js';

export interface WriteFileOutput {
  path: string;
  bytes: number;
  created: boolean;
}

/** Resolves a write target through the fence; refuses directories. */
export async function resolveWriteTarget(
  env: ToolEnv,
  tool: string,
  path: string,
  ctx: ToolCallContext,
): Promise<{ target: FencedPath; shown: string; verifyDir?: (realDir: string) => void }> {
  const strict = isPluginCall(ctx);
  const target = await env.fence.resolveWrite(path, {
    strict,
    allowAbsolute: allowsAbsoluteWrites(ctx),
  });
  if (target.exists) {
    const info = await lstat(target.absolute);
    if (!info.isFile()) {
      throw new NativeToolError(
        NativeToolErrorCode.NATIVE_WRONG_KIND,
        `${tool}: ${path} is not a regular file`,
      );
    }
  }
  const shown = strict || !isAbsolute(path) ? target.display : target.absolute;
  const verifyDir = await env.fence.landingGuard(target, path);
  return { target, shown, ...(verifyDir === undefined ? {} : { verifyDir }) };
}

export function writeFileTool(env: ToolEnv) {
  return defineNativeTool({
    name: 'write_file',
    description:
      'Create or replace a text file inside the project with the given content (atomic: readers never see a half-written file). Parent directories are created.',
    effect: 'write',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path, relative to the project root' },
        content: { type: 'string', description: 'The complete new content' },
      },
      required: ['path', 'content'],
      additionalProperties: false,
    },
    async run(args, ctx): Promise<WriteFileOutput> {
      onlyKnown('write_file', args, ['path', 'content']);
      const path = requiredString('write_file', args, 'path');
      const content = requiredString('write_file', args, 'content');
      const bytes = Buffer.byteLength(content);
      if (bytes > NATIVE_LIMITS.writeMaxBytes) {
        throw new NativeToolError(
          NativeToolErrorCode.NATIVE_TOO_LARGE,
          `write_file: "content" is ${bytes} bytes, over the ${NATIVE_LIMITS.writeMaxBytes}-byte limit`,
        );
      }
      const { target, shown, verifyDir } = await resolveWriteTarget(env, 'write_file', path, ctx);
      const { created } = await writeFileAtomic(
        target.absolute,
        content,
        verifyDir === undefined ? {} : { verifyDir },
      );
      return { path: shown, bytes, created };
    },
  });
}
