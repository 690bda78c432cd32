/**
 * Progress of one gateway call, sent to the client's `progressToken`: the pipeline stages
 * (approved, running) and, in between, the progress the plugin reports (`tool.progress` run
 * events, e.g. an upstream MCP server's `notifications/progress`), mapped into the running
 * stage so the value only grows. Nothing is sent after `settle()`, which the handler awaits
 * before it returns the result.
 *
 * The SDK clients (v1 and v2) run a notification's handler one microtask after reading it, but
 * drop the progress handler synchronously when the response is read: a progress that reaches
 * them in the same read as the result is lost. On a legacy connection `settle()` therefore ends
 * with a `ping` once anything was sent; the client answers it only after it handled every
 * earlier message, so each progress is seen before the result. The 2026-07-28 era has no
 * server→client request; there the result waits one event-loop turn after the last send.
 * @module
 */
import { type RunEvent, type RunEventStream, sanitizeTerminalLine } from '@clat/kernel';
import type { ServerContext } from '@modelcontextprotocol/server';

/** The pipeline stages before the result, as progress steps out of STAGE_TOTAL. */
const STAGES: Readonly<Record<string, { progress: number; message: string }>> = {
  'tool.approved': { progress: 1, message: 'approved' },
  'tool.started': { progress: 2, message: 'running' },
};
/** The third step is the result itself. */
const STAGE_TOTAL = 3;
/** A plugin's own progress message is cut to this many characters. */
const MESSAGE_CHARS = 512;

interface PluginProgress {
  progress: number;
  total?: number | undefined;
  message?: string | undefined;
}

function pluginProgressOf(event: RunEvent): PluginProgress | undefined {
  if (event.type !== 'tool.progress') return undefined;
  const { progress, total, message } = event;
  // A task status without a number is not a step the client can be shown.
  if (typeof progress !== 'number' || !Number.isFinite(progress) || progress < 0) return undefined;
  return {
    progress,
    total: typeof total === 'number' && total > 0 ? total : undefined,
    message,
  };
}

/** Maps plugin progress into (2, 3): after "running", before the result. */
function withinRunning(update: PluginProgress): number {
  const fraction =
    update.total === undefined
      ? update.progress / (update.progress + 1)
      : Math.min(update.progress / update.total, 1);
  return 2 + Math.min(fraction, 0.999);
}

export interface ProgressRelayOptions {
  events: RunEventStream;
  callId: string;
  token: string | number | undefined;
  ctx: ServerContext;
  /** A legacy connection: the closing ping barrier is possible. */
  legacy: boolean;
}

/** Starts relaying; the returned `settle` stops it and waits until everything sent was seen. */
export function relayProgress(options: ProgressRelayOptions): () => Promise<void> {
  const { token, ctx, callId } = options;
  if (token === undefined) return async () => {};
  let sends: Promise<void> = Promise.resolve();
  let sent = 0;
  let last = 0;
  let open = true;
  const send = (progress: number, message: string): void => {
    if (!open || progress <= last) return;
    last = progress;
    sent++;
    const notification = ctx.mcpReq.notify({
      method: 'notifications/progress',
      params: { progressToken: token, progress, total: STAGE_TOTAL, message },
    });
    sends = sends.then(() => notification.catch(() => {}));
  };
  const unsubscribe = options.events.on((event) => {
    if (!('callId' in event) || event.callId !== callId) return;
    const stage = STAGES[event.type];
    if (stage !== undefined) {
      send(stage.progress, stage.message);
      return;
    }
    const update = pluginProgressOf(event);
    if (update === undefined) return;
    const message =
      update.message === undefined
        ? 'running'
        : sanitizeTerminalLine(update.message).slice(0, MESSAGE_CHARS);
    send(withinRunning(update), message);
  });
  return async () => {
    if (!open) return;
    open = false;
    unsubscribe();
    await sends;
    if (sent === 0 || ctx.mcpReq.signal.aborted) return;
    if (options.legacy) {
      await ctx.mcpReq.send({ method: 'ping' }).catch(() => {});
    } else {
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
}
