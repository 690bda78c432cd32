/**
 * The typed run event stream: one stream per project, every adapter and the pipeline emit into it.
 * @module
 */
import type { Effect } from './effects.js';

export interface ToolSourceRef {
  /** `native`, `mcp`, `wasm`, `dsh`, or a distribution's own kind. */
  kind: string;
  /** Server, plugin or package id; empty for native tools. */
  id: string;
}

interface EventBase {
  runId: string;
  /** Milliseconds since the epoch. */
  at: number;
}

export type RunEvent =
  | (EventBase & { type: 'run.started'; mode: string })
  | (EventBase & {
      type: 'run.ended';
      reason: 'completed' | 'cancelled' | 'failed';
      error?: { code: string; message: string };
    })
  | (EventBase & {
      type: 'tool.requested';
      callId: string;
      tool: string;
      effect: Effect;
      source: ToolSourceRef;
      arguments: unknown;
    })
  | (EventBase & { type: 'tool.approved'; callId: string; tool: string; by: 'policy' | 'user' })
  | (EventBase & { type: 'tool.denied'; callId: string; tool: string; reason: string })
  | (EventBase & { type: 'tool.started'; callId: string; tool: string })
  | (EventBase & {
      type: 'tool.progress';
      callId: string;
      tool: string;
      progress?: number;
      total?: number;
      /** Untrusted text from the tool's source: show it only through the sanitiser. */
      message?: string;
      task?: { id: string; status: string };
    })
  | (EventBase & {
      type: 'tool.finished';
      callId: string;
      tool: string;
      durationMs: number;
      isError: boolean;
    })
  | (EventBase & {
      type: 'tool.failed';
      callId: string;
      tool: string;
      durationMs: number;
      error: { code: string; message: string };
    })
  | (EventBase & {
      type: 'sampling.requested';
      requestId: string;
      source: ToolSourceRef;
      messages: number;
      chars: number;
      maxTokens: number;
    })
  | (EventBase & { type: 'sampling.approved'; requestId: string; by: 'policy' | 'user' })
  | (EventBase & { type: 'sampling.denied'; requestId: string; reason: string })
  | (EventBase & {
      type: 'sampling.completed';
      requestId: string;
      model: string;
      usage: { inputTokens: number; outputTokens: number } | null;
    })
  | (EventBase & {
      type: 'sampling.failed';
      requestId: string;
      error: { code: string; message: string };
    })
  | (EventBase & {
      type: 'elicitation.requested';
      requestId: string;
      source: ToolSourceRef;
      fields: number;
    })
  | (EventBase & {
      type: 'elicitation.completed';
      requestId: string;
      action: 'accept' | 'decline' | 'cancel';
    })
  | (EventBase & {
      type: 'elicitation.failed';
      requestId: string;
      error: { code: string; message: string };
    })
  | (EventBase & {
      type: 'diagnostic';
      level: 'info' | 'warn' | 'error';
      source: ToolSourceRef;
      message: string;
    });

export type RunEventType = RunEvent['type'];
export type RunEventOf<T extends RunEventType> = Extract<RunEvent, { type: T }>;

type Listener = (event: RunEvent) => void;

/**
 * A synchronous fan-out stream. A throwing listener never breaks the emitter or other listeners;
 * its error goes to `onListenerError`.
 */
export class RunEventStream {
  readonly #listeners = new Set<Listener>();
  /** Copied on subscribe/unsubscribe, not per emit: the pipeline emits four events per call. */
  #snapshot: readonly Listener[] = [];
  readonly #onListenerError: (error: unknown) => void;

  constructor(options: { onListenerError?: (error: unknown) => void } = {}) {
    this.#onListenerError = options.onListenerError ?? (() => {});
  }

  /** Subscribes; returns the unsubscribe function. */
  on(listener: Listener): () => void {
    this.#listeners.add(listener);
    this.#snapshot = [...this.#listeners];
    return () => {
      if (this.#listeners.delete(listener)) this.#snapshot = [...this.#listeners];
    };
  }

  /** Subscribes to one event type. */
  onType<T extends RunEventType>(type: T, listener: (event: RunEventOf<T>) => void): () => void {
    return this.on((event) => {
      if (event.type === type) listener(event as RunEventOf<T>);
    });
  }

  emit(event: RunEvent): void {
    // A listener added or removed during this emit changes the next snapshot, not this loop.
    for (const listener of this.#snapshot) {
      try {
        listener(event);
      } catch (error) {
        this.#onListenerError(error);
      }
    }
  }

  /** Collects events until the returned stop function is called; handy for journals and tests. */
  record(filter?: (event: RunEvent) => boolean): { events: RunEvent[]; stop: () => void } {
    const events: RunEvent[] = [];
    const stop = this.on((event) => {
      if (filter === undefined || filter(event)) events.push(event);
    });
    return { events, stop };
  }
}
