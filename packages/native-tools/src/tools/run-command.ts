import { cancelledError } from '@clat/kernel';
import {
  invalidArguments,
  onlyKnown,
  optionalBoolean,
  optionalEnum,
  optionalInteger,
  requiredString,
} from '../args.js';
import { NativeToolError, NativeToolErrorCode } from '../errors.js';
import { NATIVE_LIMITS } from '../limits.js';
import { defineNativeTool } from '../native-tool.js';
import type { ToolEnv } from '../options.js';
import { runInProcessGroup } from '../run-in-process-group.js';

export interface RunCommandOutput {
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  stdout: string;
  stderr: string;
  stdout_truncated: boolean;
  stderr_truncated: boolean;
  /** The sandbox applied: this build has none, so always `none`. */
  sandbox: 'none';
  /** Whether `network: false` could be enforced (never without a sandbox). */
  network_restricted: false;
  /** Processes the command left behind in its group (killed when the shell exited). */
  killed_leftovers: boolean;
}

export function runCommandTool(env: ToolEnv) {
  return defineNativeTool({
    name: 'run_command',
    description:
      'Run a shell command in the project root and wait for it (one-shot, stdin closed). The command and everything it starts run in their own process group, killed on timeout, cancellation or when the shell exits. stdout and stderr keep their head and tail.',
    effect: 'execute',
    inputSchema: {
      type: 'object',
      properties: {
        command: { type: 'string', minLength: 1, description: 'Shell command line (/bin/sh -c)' },
        timeout_seconds: {
          type: 'integer',
          minimum: 1,
          maximum: NATIVE_LIMITS.commandMaxTimeoutSeconds,
          default: NATIVE_LIMITS.commandDefaultTimeoutSeconds,
        },
        network: {
          type: 'boolean',
          default: false,
          description: 'Whether the command needs the network',
        },
        sandbox: { type: 'string', enum: ['auto', 'required', 'off'], default: 'auto' },
      },
      required: ['command'],
      additionalProperties: false,
    },
    async run(args, ctx): Promise<RunCommandOutput> {
      const tool = 'run_command';
      onlyKnown(tool, args, ['command', 'timeout_seconds', 'network', 'sandbox']);
      const command = requiredString(tool, args, 'command');
      if (command.trim() === '') throw invalidArguments(tool, '"command" must not be empty');
      const size = Buffer.byteLength(command);
      if (size > NATIVE_LIMITS.commandMaxBytes) {
        throw invalidArguments(
          tool,
          `"command" is ${size} bytes, over the ${NATIVE_LIMITS.commandMaxBytes}-byte limit`,
        );
      }
      const timeoutSeconds = optionalInteger(tool, args, 'timeout_seconds', {
        min: 1,
        max: NATIVE_LIMITS.commandMaxTimeoutSeconds,
        fallback: NATIVE_LIMITS.commandDefaultTimeoutSeconds,
      }) as number;
      optionalBoolean(tool, args, 'network', false);
      const sandbox = optionalEnum(
        tool,
        args,
        'sandbox',
        ['auto', 'required', 'off'] as const,
        'auto',
      );
      if (sandbox === 'required') {
        throw new NativeToolError(
          NativeToolErrorCode.NATIVE_SANDBOX_UNAVAILABLE,
          `${tool}: sandbox "required" was asked for, but no command sandbox is available on ${process.platform}`,
        );
      }
      if (ctx.signal.aborted) throw cancelledError(ctx.signal, tool);
      let result: Awaited<ReturnType<typeof runInProcessGroup>>;
      try {
        result = await runInProcessGroup({
          shell: env.options.shell ?? '/bin/sh',
          command,
          cwd: env.fence.root,
          env: env.options.env ?? process.env,
          timeoutMs: timeoutSeconds * 1000,
          outputBytes: NATIVE_LIMITS.commandOutputBytes,
          signal: ctx.signal,
        });
      } catch (error) {
        throw new NativeToolError(
          NativeToolErrorCode.NATIVE_SPAWN_FAILED,
          `${tool}: could not start the shell: ${(error as Error).message}`,
          { cause: error },
        );
      }
      if (result.cancelled) throw cancelledError(ctx.signal, tool);
      return {
        exit_code: result.exitCode,
        signal: result.signal,
        timed_out: result.timedOut,
        stdout: result.stdout.text(),
        stderr: result.stderr.text(),
        stdout_truncated: result.stdout.truncated,
        stderr_truncated: result.stderr.truncated,
        sandbox: 'none',
        network_restricted: false,
        killed_leftovers: result.leftovers,
      };
    },
  });
}
