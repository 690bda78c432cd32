/**
 * A guest whose tools were registered from a remembered list (tool-list-memo.ts) starts at its
 * first call: the component is prepared then, the instance lists its tools, and only a list equal
 * to the remembered one lets calls through. Any other list fails the plugin (a registry frozen
 * for the run cannot take the new tools), and the new list is remembered for the next mount.
 * @module
 */
import { abortable, errorMessage, isKernelError, KernelErrorCode } from '@clat/kernel';
import { isWasmError, WasmError, WasmErrorCode } from './errors.js';
import type { GuestCallOutcome, GuestToolDefinition } from './guest-host-contract.js';
import type { JcoGuestHost } from './jco-guest-host.js';

/** What registered tools call: the guest host itself, or one that starts at its first call. */
export interface GuestCaller {
  call(name: string, argsJson: string, signal: AbortSignal): Promise<GuestCallOutcome>;
}

export interface StartOnFirstCallOptions {
  guest: JcoGuestHost;
  /** The list the tools were registered from. */
  listed: readonly GuestToolDefinition[];
  /** Lets the component's preparation begin (the guest host's component waits for it). */
  begin(): void;
  /** The guest listed other tools than `listed`; gives the error every call then fails with. */
  changed(tools: GuestToolDefinition[]): Promise<WasmError>;
  /** The start failed (or the list changed): the plugin fails with this error. */
  failed(error: WasmError): Promise<void>;
}

const sameList = (a: readonly GuestToolDefinition[], b: readonly GuestToolDefinition[]) =>
  a.length === b.length &&
  a.every(
    (tool, index) =>
      tool.name === b[index]?.name &&
      tool.description === b[index]?.description &&
      tool.inputSchema === b[index]?.inputSchema &&
      tool.effect === b[index]?.effect,
  );

/** A caller that starts `options.guest` at the first call and then calls it directly. */
export function startOnFirstCall(options: StartOnFirstCallOptions): GuestCaller {
  const { guest } = options;
  let verified = false;
  let starting: Promise<void> | undefined;
  const start = async (): Promise<void> => {
    options.begin();
    let failure: WasmError;
    try {
      const tools = await guest.start();
      if (sameList(tools, options.listed)) {
        verified = true;
        return;
      }
      failure = await options.changed(tools);
    } catch (error) {
      failure = isWasmError(error)
        ? error
        : new WasmError(
            WasmErrorCode.WASM_START_FAILED,
            `wasm plugin ${guest.plugin} failed to start: ${errorMessage(error)}`,
            { cause: error },
          );
    }
    // Reported (and the list updated) before any waiting call sees the failure.
    await options.failed(failure);
    throw failure;
  };
  const beforeStart = async (
    name: string,
    argsJson: string,
    signal: AbortSignal,
  ): Promise<GuestCallOutcome> => {
    starting ??= start();
    try {
      await abortable(starting, signal);
    } catch (error) {
      // A cancelled call stops waiting; the start goes on for the next call.
      if (!isKernelError(error) || error.code !== KernelErrorCode.CANCELLED) throw error;
      return { kind: 'cancelled', message: `call into wasm plugin ${guest.plugin} was cancelled` };
    }
    return guest.call(name, argsJson, signal);
  };
  return {
    // Once verified, straight to the guest host, as for a guest started at mount.
    call: (name, argsJson, signal) =>
      verified ? guest.call(name, argsJson, signal) : beforeStart(name, argsJson, signal),
  };
}
