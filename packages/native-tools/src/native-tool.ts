/**
 * Turns a tool body into a kernel `Tool`: tool-level failures become `isError` results with a
 * code, so the model can correct itself and the host bridge can map the code; cancellation and
 * other host failures still throw.
 * @module
 */
import {
  type Effect,
  errorMessage,
  isKernelError,
  type JsonObject,
  type Tool,
  type ToolCallContext,
  type ToolResult,
} from '@clat/kernel';
import { NativeToolError, NativeToolErrorCode } from './errors.js';

export interface NativeToolSpec {
  name: string;
  description: string;
  inputSchema: JsonObject;
  effect: Effect;
  /** Returns the structured output; the model reads it as JSON. */
  run(args: JsonObject, ctx: ToolCallContext): Promise<unknown>;
}

const FS_CODES: Record<string, NativeToolErrorCode> = {
  ENOENT: NativeToolErrorCode.NATIVE_NOT_FOUND,
  ENOTDIR: NativeToolErrorCode.NATIVE_WRONG_KIND,
  EISDIR: NativeToolErrorCode.NATIVE_WRONG_KIND,
};

function toFailure(error: unknown): NativeToolError | undefined {
  if (error instanceof NativeToolError) return error;
  if (isKernelError(error)) return undefined;
  const errno = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof errno === 'string') {
    return new NativeToolError(
      FS_CODES[errno] ?? NativeToolErrorCode.NATIVE_IO_FAILED,
      errorMessage(error),
      {
        cause: error,
      },
    );
  }
  return undefined;
}

export function defineNativeTool(spec: NativeToolSpec): Tool {
  return {
    definition: {
      name: spec.name,
      description: spec.description,
      inputSchema: spec.inputSchema,
      effect: spec.effect,
      source: { kind: 'native', id: '' },
    },
    async invoke(args, ctx): Promise<ToolResult> {
      try {
        const output = await spec.run(args, ctx);
        return { content: JSON.stringify(output), structured: output };
      } catch (error) {
        const failure = toFailure(error);
        if (failure === undefined) throw error;
        return {
          content: failure.message,
          isError: true,
          structured: { error: { code: failure.code, message: failure.message } },
        };
      }
    },
  };
}
