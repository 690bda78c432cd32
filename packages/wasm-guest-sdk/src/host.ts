/**
 * Typed helpers over the clat:plugin host imports. Every call blocks until the host answers; a
 * host refusal (no active run, permission denied, capability not declared) throws HostError.
 * @module
 */
/// <reference path="./gen/plugin.d.ts" />
import { get as witConfigGet } from 'clat:plugin/config@0.1.0';
import { elicit as witElicit } from 'clat:plugin/elicitation@0.1.0';
import { callTool as witCallTool, context as witContext } from 'clat:plugin/host@0.1.0';
import { createMessage as witCreateMessage } from 'clat:plugin/sampling@0.1.0';
import { errorText } from './plugin.js';

/** A refusal or failure reported by the host; `code` is the host's error code when it sent one. */
export class HostError extends Error {
  readonly code: string | undefined;

  constructor(text: string) {
    const match = /^([A-Z][A-Z_]+): (.*)$/s.exec(text);
    super(match === null ? text : (match[2] as string));
    this.name = 'HostError';
    this.code = match === null ? undefined : match[1];
  }

  override toString(): string {
    return this.code === undefined ? this.message : `${this.code}: ${this.message}`;
  }
}

function unwrap<T>(call: () => T): T {
  try {
    return call();
  } catch (error) {
    throw new HostError(errorText(error));
  }
}

/** The native tools a plugin may call (the host allowlist). */
export type HostToolName =
  | 'list_files'
  | 'read_file'
  | 'search'
  | 'write_file'
  | 'edit_file'
  | 'run_command';

/** The host's context snapshot (see the kernel's HostContextSnapshot). */
export interface HostContext {
  protocolVersion: string;
  project: { root: string };
  run: {
    runId: string;
    sessionId: string | null;
    provider: string | null;
    model: string | null;
    permissionMode: string | null;
    messages: unknown[];
  } | null;
  hostTools: string[];
}

export const host = {
  /** A bounded snapshot of the active project and run. */
  context(): HostContext {
    return JSON.parse(unwrap(() => witContext())) as HostContext;
  },
  /** Runs one allowlisted native tool through the run's permission pipeline. */
  callTool<T = unknown>(name: HostToolName, args: Record<string, unknown> = {}): T {
    return JSON.parse(unwrap(() => witCallTool(name, JSON.stringify(args)))) as T;
  },
};

export interface SamplingRequest {
  systemPrompt?: string;
  messages: { role: 'user' | 'assistant'; text: string }[];
  maxTokens: number;
  temperature?: number;
}

export interface SamplingOutcome {
  text: string;
  model: string;
  stopReason: string;
}

export const sampling = {
  /** Asks the session model (after the user's approval, within the run's budget). */
  createMessage(request: SamplingRequest): SamplingOutcome {
    return unwrap(() =>
      witCreateMessage({
        messages: request.messages.map((message) => ({ role: message.role, text: message.text })),
        maxTokens: BigInt(Math.max(0, Math.floor(request.maxTokens))),
        ...(request.systemPrompt === undefined ? {} : { systemPrompt: request.systemPrompt }),
        ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      }),
    );
  },
};

export type ElicitationValue =
  | { tag: 'text'; val: string }
  | { tag: 'number'; val: number }
  | { tag: 'boolean'; val: boolean };

export interface ElicitationField {
  name: string;
  title?: string;
  description?: string;
  kind: 'text' | 'number' | 'boolean' | 'choice';
  /** Choices of a `choice` field; empty otherwise. */
  options: string[];
  required: boolean;
  default?: ElicitationValue;
}

export interface ElicitationForm {
  message: string;
  fields: ElicitationField[];
}

export type ElicitationOutcome =
  | { tag: 'accepted'; val: [string, ElicitationValue][] }
  | { tag: 'declined' }
  | { tag: 'cancelled' };

export const elicitation = {
  /** Asks the user a small form; `declined`/`cancelled` are answers, not errors. */
  elicit(form: ElicitationForm): ElicitationOutcome {
    return unwrap(() => witElicit(form));
  },
};

export const config = {
  /** The plugin's configuration, or undefined when none is set. */
  get<T = unknown>(): T | undefined {
    let text: string;
    try {
      text = witConfigGet();
    } catch {
      return undefined;
    }
    return JSON.parse(text) as T;
  },
};
