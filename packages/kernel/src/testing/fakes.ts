import type {
  ApprovalDecision,
  ApprovalRequest,
  Approver,
  UserAnswer,
  UserAsker,
  UserQuestion,
} from '../ports.js';

type ApprovalScript =
  | ApprovalDecision
  | ((request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>);

/** Answers approvals from a script (one entry per request, the last repeats) and records them. */
export class ScriptedApprover implements Approver {
  readonly requests: ApprovalRequest[] = [];
  readonly #script: ApprovalScript[];

  constructor(...script: ApprovalScript[]) {
    this.#script = script.length > 0 ? script : [{ outcome: 'allow' }];
  }

  async approve(request: ApprovalRequest): Promise<ApprovalDecision> {
    this.requests.push(request);
    const step = this.#script[
      Math.min(this.requests.length - 1, this.#script.length - 1)
    ] as ApprovalScript;
    return typeof step === 'function' ? step(request) : step;
  }
}

type AnswerScript =
  | UserAnswer
  | string
  | ((question: UserQuestion) => UserAnswer | Promise<UserAnswer>);

/** Answers questions from a script in order and records them; running out answers `cancelled`. */
export class ScriptedAsker implements UserAsker {
  readonly questions: UserQuestion[] = [];
  readonly #script: AnswerScript[];

  constructor(...script: AnswerScript[]) {
    this.#script = script;
  }

  async ask(question: UserQuestion, signal: AbortSignal): Promise<UserAnswer> {
    this.questions.push(question);
    if (signal.aborted) return { kind: 'cancelled' };
    const step = this.#script.shift();
    if (step === undefined) return { kind: 'cancelled' };
    if (typeof step === 'string') return { kind: 'answer', text: step };
    return typeof step === 'function' ? step(question) : step;
  }
}
