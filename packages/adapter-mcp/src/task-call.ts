/**
 * Task-augmented tools/call (the 2025-11-25 tasks utility): the call creates a task, CLAT polls
 * tasks/get with a growing delay that never undercuts the server's pollInterval, reports each
 * status, fetches tasks/result once the task is terminal (or needs input, which tasks/result
 * delivers), and on cancellation sends tasks/cancel.
 * @module
 */
import { delay, errorMessage, isJsonObject, type ToolProgress } from '@clat/kernel';
import { isMcpError, McpError, McpErrorCode } from './errors.js';
import { MCP_LIMITS } from './limits.js';
import type { RequestOptions } from './rpc-session.js';

/** Task statuses after which tasks/result answers at once. */
const TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

/** What a task call needs from its client. */
export interface TaskCallPort {
  readonly server: string;
  request(
    method: string,
    params: Record<string, unknown>,
    options: RequestOptions,
  ): Promise<Record<string, unknown>>;
}

export interface TaskCallOptions {
  signal?: AbortSignal | undefined;
  onProgress?: ((update: ToolProgress) => void) | undefined;
  /** The tools/call request's own deadline and extension. */
  call: RequestOptions;
  /** Test overrides of the MCP_LIMITS task numbers. */
  limits?: Partial<TaskLimits> | undefined;
}

export interface TaskLimits {
  waitMs: number;
  requestMs: number;
  cancelMs: number;
  pollMinMs: number;
  pollMaxMs: number;
}

interface TaskState {
  taskId: string;
  status: string;
  statusMessage: string | undefined;
  pollInterval: number | undefined;
}

function quoted(value: string): string {
  return JSON.stringify(value);
}

function readTask(server: string, what: string, value: unknown): TaskState {
  if (!isJsonObject(value) || typeof value.taskId !== 'string' || value.taskId === '') {
    throw new McpError(
      McpErrorCode.MCP_PROTOCOL_VIOLATION,
      `MCP server ${quoted(server)} answered ${what} without a task id`,
      { server },
    );
  }
  if (typeof value.status !== 'string') {
    throw new McpError(
      McpErrorCode.MCP_PROTOCOL_VIOLATION,
      `MCP server ${quoted(server)} answered ${what} for task ${quoted(value.taskId)} without a status`,
      { server },
    );
  }
  const poll = value.pollInterval;
  return {
    taskId: value.taskId,
    status: value.status,
    statusMessage: typeof value.statusMessage === 'string' ? value.statusMessage : undefined,
    pollInterval: typeof poll === 'number' && Number.isFinite(poll) && poll > 0 ? poll : undefined,
  };
}

/**
 * Runs `tools/call` as a task and returns the final tools/call result. A server that answers the
 * augmented call with a plain result (it ran the tool at once) is served that result.
 */
export async function callToolAsTask(
  port: TaskCallPort,
  params: Record<string, unknown>,
  options: TaskCallOptions,
): Promise<Record<string, unknown>> {
  const limits: TaskLimits = {
    waitMs: options.limits?.waitMs ?? MCP_LIMITS.taskWaitMs,
    requestMs: options.limits?.requestMs ?? MCP_LIMITS.taskRequestMs,
    cancelMs: options.limits?.cancelMs ?? MCP_LIMITS.taskCancelMs,
    pollMinMs: options.limits?.pollMinMs ?? MCP_LIMITS.taskPollMinMs,
    pollMaxMs: options.limits?.pollMaxMs ?? MCP_LIMITS.taskPollMaxMs,
  };
  const { server } = port;
  const { signal } = options;
  const what = options.call.what ?? 'tools/call';
  params.task = {};
  const created = await port.request('tools/call', params, options.call);
  if (!isJsonObject(created.task) && Array.isArray(created.content)) return created;
  let task = readTask(server, what, created.task);
  const deadline = Date.now() + limits.waitMs;
  const report = (): void => {
    const update: ToolProgress = { task: { id: task.taskId, status: task.status } };
    if (task.statusMessage !== undefined) update.message = task.statusMessage;
    options.onProgress?.(update);
  };
  report();
  try {
    let wait = limits.pollMinMs;
    while (!TERMINAL.has(task.status) && task.status !== 'input_required') {
      const pause = Math.max(Math.min(wait, limits.pollMaxMs), task.pollInterval ?? 0);
      if (Date.now() + pause > deadline) throw timeout(server, what, task, limits.waitMs);
      await delay(pause, signal);
      wait *= 2;
      const got = readTask(
        server,
        `tasks/get ${task.taskId}`,
        await port.request(
          'tasks/get',
          { taskId: task.taskId },
          { timeoutMs: limits.requestMs, signal, what: `tasks/get ${task.taskId}` },
        ),
      );
      const changed = got.status !== task.status || got.statusMessage !== task.statusMessage;
      task = got;
      if (changed) report();
    }
    if (task.status === 'cancelled') {
      throw new McpError(
        McpErrorCode.MCP_REMOTE_ERROR,
        `MCP server ${quoted(server)} cancelled task ${quoted(task.taskId)} of ${what}${task.statusMessage === undefined ? '' : `: ${task.statusMessage}`}`,
        { server },
      );
    }
    // input_required: tasks/result carries the server's questions and blocks until the end.
    const remaining = Math.max(deadline - Date.now(), 1);
    const result = await port.request(
      'tasks/result',
      { taskId: task.taskId },
      {
        timeoutMs: TERMINAL.has(task.status) ? Math.min(limits.requestMs, remaining) : remaining,
        signal,
        what: `tasks/result ${task.taskId}`,
        extension: options.call.extension,
      },
    );
    if (!TERMINAL.has(task.status)) {
      task = { ...task, status: 'completed', statusMessage: undefined };
      report();
    }
    return result;
  } catch (error) {
    if (!isFinal(error)) {
      // Cancelled or out of time: the server should stop the work too. Best effort, and bounded
      // tightly so that cancelling stays prompt.
      await cancelTask(port, task.taskId, limits.cancelMs, options.onProgress);
    }
    throw error;
  }
}

/** Errors after which the task is already over on the server (nothing to cancel). */
function isFinal(error: unknown): boolean {
  return (
    isMcpError(error) &&
    (error.code === McpErrorCode.MCP_REMOTE_ERROR ||
      error.code === McpErrorCode.MCP_PROTOCOL_VIOLATION ||
      error.code === McpErrorCode.MCP_CONNECTION_CLOSED ||
      error.code === McpErrorCode.MCP_CLIENT_CLOSED)
  );
}

async function cancelTask(
  port: TaskCallPort,
  taskId: string,
  timeoutMs: number,
  onProgress: ((update: ToolProgress) => void) | undefined,
): Promise<void> {
  try {
    const answer = await port.request(
      'tasks/cancel',
      { taskId },
      { timeoutMs, what: `tasks/cancel ${taskId}` },
    );
    const status = typeof answer.status === 'string' ? answer.status : 'cancelled';
    onProgress?.({ task: { id: taskId, status } });
  } catch (error) {
    onProgress?.({
      task: { id: taskId, status: 'cancel-failed' },
      message: `tasks/cancel failed: ${errorMessage(error)}`,
    });
  }
}

function timeout(server: string, what: string, task: TaskState, waitMs: number): McpError {
  return new McpError(
    McpErrorCode.MCP_TIMEOUT,
    `MCP server ${quoted(server)} did not finish task ${quoted(task.taskId)} of ${what} within ${waitMs} ms (last status ${task.status})`,
    { server },
  );
}
