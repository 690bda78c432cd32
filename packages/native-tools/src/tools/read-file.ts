import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { cancelledError } from '@clat/kernel';
import { invalidArguments, onlyKnown, optionalInteger, requiredString } from '../args.js';
import { NativeToolError, NativeToolErrorCode } from '../errors.js';
import { NATIVE_LIMITS } from '../limits.js';
import { defineNativeTool } from '../native-tool.js';
import { isPluginCall, type ToolEnv } from '../options.js';
import { ResultBudget } from '../result-budget.js';

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

/** The longest head of `rendered` within `maxBytes` whose JSON form fits the result budget. */
function headThatFits(rendered: string, maxBytes: number): string {
  let head = Buffer.from(rendered)
    .subarray(0, maxBytes)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  while (head.length > 0 && !new ResultBudget().take(head))
    head = head.slice(0, Math.floor(head.length / 2));
  return head;
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
      // Lines are split by hand so that an enormous line costs at most max_bytes of memory.
      let content = '';
      let bytes = 0;
      // max_bytes counts raw text; the budget counts it JSON-escaped, as the result carries it.
      const budget = new ResultBudget();
      let lineNo = 0;
      let last = start - 1;
      let truncated = false;
      let done = false;
      let parts: Buffer[] = [];
      let kept = 0;
      let seenInLine = 0;
      let overlong = false;
      const inRange = (n: number) => n >= start && (end === undefined || n <= end);
      const finishLine = () => {
        lineNo++;
        if (inRange(lineNo)) {
          let text = Buffer.concat(parts).toString('utf8');
          if (overlong) text = text.replace(/\uFFFD$/, '');
          else if (text.endsWith('\r')) text = text.slice(0, -1);
          const rendered = `${lineNo} | ${text}\n`;
          const size = Buffer.byteLength(rendered);
          if (overlong || bytes + size > maxBytes || !budget.take(rendered)) {
            truncated = true;
            if (content === '') {
              // A single line over the budget: show its head so the caller sees something.
              content = headThatFits(rendered, maxBytes);
              last = lineNo;
            }
            done = true;
          } else {
            content += rendered;
            bytes += size;
            last = lineNo;
          }
        }
        if (end !== undefined && lineNo >= end) done = true;
        parts = [];
        kept = 0;
        seenInLine = 0;
        overlong = false;
      };
      const stream = createReadStream(target.absolute);
      try {
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          if (ctx.signal.aborted) throw cancelledError(ctx.signal, 'read_file');
          let from = 0;
          while (!done) {
            const newline = chunk.indexOf(0x0a, from);
            const piece = chunk.subarray(from, newline === -1 ? chunk.length : newline);
            seenInLine += piece.length;
            if (inRange(lineNo + 1) && piece.length > 0) {
              const take = piece.subarray(0, Math.max(0, maxBytes - kept));
              if (take.length > 0) parts.push(take);
              kept += take.length;
              if (take.length < piece.length) overlong = true;
            }
            if (newline === -1) break;
            finishLine();
            from = newline + 1;
          }
          if (done) break;
        }
        if (!done && seenInLine > 0) finishLine();
      } finally {
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
