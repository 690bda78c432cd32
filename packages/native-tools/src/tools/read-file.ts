import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { createInterface } from 'node:readline';
import { cancelledError } from '@clat/kernel';
import { invalidArguments, onlyKnown, optionalInteger, requiredString } from '../args.js';
import { NativeToolError, NativeToolErrorCode } from '../errors.js';
import { NATIVE_LIMITS } from '../limits.js';
import { defineNativeTool } from '../native-tool.js';
import { isPluginCall, type ToolEnv } from '../options.js';

export interface ReadFileOutput {
  path: string;
  start_line: number;
  end_line: number;
  /** Numbered lines: `N | text\n`. */
  content: string;
  truncated: boolean;
}

/** True when the first bytes of the file contain a NUL. */
export async function looksBinary(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(NATIVE_LIMITS.binarySniffBytes);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).includes(0);
  } finally {
    await handle.close();
  }
}

export function readFileTool(env: ToolEnv) {
  return defineNativeTool({
    name: 'read_file',
    description:
      'Read a text file as numbered lines ("N | text"), optionally a line range. Output stops at max_bytes and sets truncated; continue with start_line.',
    effect: 'read',
    inputSchema: {
      type: 'object',
      properties: {
        path: {
          type: 'string',
          description: 'File path, relative to the project root or absolute',
        },
        start_line: { type: 'integer', minimum: 1, description: 'First line (1-based)' },
        end_line: { type: 'integer', minimum: 1, description: 'Last line, inclusive' },
        max_bytes: {
          type: 'integer',
          minimum: 1,
          maximum: NATIVE_LIMITS.readMaxBytes,
          default: NATIVE_LIMITS.readDefaultBytes,
        },
      },
      required: ['path'],
      additionalProperties: false,
    },
    async run(args, ctx): Promise<ReadFileOutput> {
      onlyKnown('read_file', args, ['path', 'start_line', 'end_line', 'max_bytes']);
      const path = requiredString('read_file', args, 'path');
      const start = optionalInteger('read_file', args, 'start_line', {
        min: 1,
        max: Number.MAX_SAFE_INTEGER,
        fallback: 1,
      }) as number;
      const end = optionalInteger('read_file', args, 'end_line', {
        min: 1,
        max: Number.MAX_SAFE_INTEGER,
      });
      if (end !== undefined && end < start)
        throw invalidArguments('read_file', `"end_line" ${end} is before "start_line" ${start}`);
      const maxBytes = optionalInteger('read_file', args, 'max_bytes', {
        min: 1,
        max: NATIVE_LIMITS.readMaxBytes,
        fallback: NATIVE_LIMITS.readDefaultBytes,
      }) as number;
      const target = await env.fence.resolveRead(path, { strict: isPluginCall(ctx) });
      const shown = isPluginCall(ctx) || !isAbsolute(path) ? target.display : target.absolute;
      const info = await stat(target.absolute);
      if (!info.isFile())
        throw new NativeToolError(
          NativeToolErrorCode.NATIVE_WRONG_KIND,
          `${path} is not a regular file`,
        );
      if (await looksBinary(target.absolute)) {
        throw new NativeToolError(
          NativeToolErrorCode.NATIVE_BINARY_FILE,
          `${path} looks like a binary file; read_file reads text only`,
        );
      }
      const stream = createReadStream(target.absolute, { encoding: 'utf8' });
      const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
      let content = '';
      let bytes = 0;
      let lineNo = 0;
      let last = start - 1;
      let truncated = false;
      try {
        for await (const line of lines) {
          lineNo++;
          if (lineNo < start) continue;
          if (end !== undefined && lineNo > end) break;
          if (ctx.signal.aborted) throw cancelledError(ctx.signal, 'read_file');
          const rendered = `${lineNo} | ${line}\n`;
          const size = Buffer.byteLength(rendered);
          if (bytes + size > maxBytes) {
            truncated = true;
            if (content === '') {
              // A single line over the budget: show its head so the caller sees something.
              content = Buffer.from(rendered)
                .subarray(0, maxBytes)
                .toString('utf8')
                .replace(/\uFFFD$/, '');
              last = lineNo;
            }
            break;
          }
          content += rendered;
          bytes += size;
          last = lineNo;
        }
      } finally {
        lines.close();
        stream.destroy();
      }
      if (lineNo < start && start > 1 && content === '') {
        throw invalidArguments(
          'read_file',
          `"start_line" ${start} is past the end of ${path} (${lineNo} lines)`,
        );
      }
      return {
        path: shown,
        start_line: start,
        end_line: Math.max(last, start - 1),
        content,
        truncated,
      };
    },
  });
}
