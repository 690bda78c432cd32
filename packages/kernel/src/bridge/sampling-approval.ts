/**
 * The permission gate of sampling: the mode table for Execute, then the run's approver with the
 * complete payload (Full Access skips only the dialog). Every verdict is a run event.
 * @module
 */
import { approvalRefusal } from '../approval-refusal.js';
import { abortable, cancelledError } from '../cancel.js';
import type { HostCaller } from '../contract/host-services.js';
import { decide } from '../effects.js';
import { errorMessage, KernelError, KernelErrorCode } from '../errors.js';
import type { RunEvent } from '../events.js';
import type { ApprovalDecision, Approver } from '../ports.js';
import { type ActiveRun, callerLabel } from './bridge-run.js';
import type { checkSamplingPayload } from './sampling-gates.js';

/** What the gate needs from its bridge. */
export interface SamplingApprovalHooks {
  emit(event: RunEvent): void;
  /** Throws when the run ended or the request was cancelled while the approver waited. */
  checkpoint(what: string): void;
}

/** Resolves when sampling may proceed; throws SAMPLING_NOT_APPROVED (or a cancellation) otherwise. */
export async function approveSampling(
  run: ActiveRun,
  caller: HostCaller,
  requestId: string,
  payload: ReturnType<typeof checkSamplingPayload>,
  signal: AbortSignal,
  hooks: SamplingApprovalHooks,
): Promise<void> {
  const tool = `${callerLabel(caller)}:sampling`;
  const deny = (reason: string): never => {
    hooks.emit({ runId: run.runId, requestId, type: 'sampling.denied', at: Date.now(), reason });
    throw new KernelError(
      KernelErrorCode.SAMPLING_NOT_APPROVED,
      `sampling was not approved: ${reason}`,
      {
        data: { tool },
      },
    );
  };
  const approved = (by: 'policy' | 'user') =>
    hooks.emit({ runId: run.runId, requestId, type: 'sampling.approved', at: Date.now(), by });
  const verdict = decide(run.mode, 'execute');
  if (verdict === 'allow') {
    approved('policy');
    return;
  }
  if (verdict === 'deny') deny(`the ${run.mode} mode denies sampling`);
  if (run.approver === undefined) deny('it needs approval and no approver is attached (headless)');
  const { request } = payload;
  let decision: ApprovalDecision;
  try {
    decision = await abortable(
      (run.approver as Approver).approve(
        {
          callId: requestId,
          tool,
          effect: 'execute',
          source: caller,
          reason: `${callerLabel(caller)} asks the session model for up to ${payload.maxTokens} tokens`,
          arguments: {
            source: callerLabel(caller),
            maxTokens: payload.maxTokens,
            ...(payload.requestedMaxTokens === payload.maxTokens
              ? {}
              : { requestedMaxTokens: payload.requestedMaxTokens }),
            ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
            ...(request.systemPrompt === undefined ? {} : { systemPrompt: request.systemPrompt }),
            messages: request.messages.map((message) => ({
              role: message.role,
              text: message.text,
            })),
          },
        },
        signal,
      ),
      signal,
      `approval of ${tool}`,
    );
  } catch (error) {
    if (signal.aborted) throw cancelledError(signal, `approval of ${tool}`);
    return deny(`approver failed: ${errorMessage(error)}`);
  }
  hooks.checkpoint('sampling approval');
  const refusal = approvalRefusal(decision);
  if (refusal !== undefined) return deny(refusal);
  approved('user');
}
