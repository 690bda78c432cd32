/**
 * Helpers for the bridge's own unit tests (not exported from the package).
 * @module
 */
import { RunEventStream } from '../events.js';
import type { JsonObject } from '../json.js';
import { ToolPipeline } from '../pipeline.js';
import type { ModelProvider, ModelRequest, ModelResponse } from '../ports.js';
import { createGlobalScope } from '../scope.js';
import type { ToolCallContext, ToolResult } from '../tool-registry.js';
import { ToolRegistry } from '../tool-registry.js';

/** A deterministic session model: echoes the last message and records every request. */
export class EchoModel implements ModelProvider {
  readonly name = 'test-provider';
  readonly model = 'echo-1';
  readonly requests: ModelRequest[] = [];
  usage: ModelResponse['usage'] = { inputTokens: 10, outputTokens: 5 };
  /** Replaces the answer (for slow or failing providers). */
  answer: ((request: ModelRequest, signal: AbortSignal) => Promise<ModelResponse>) | undefined;

  async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
    this.requests.push(request);
    if (this.answer !== undefined) return this.answer(request, signal);
    const last = request.messages.at(-1)?.text ?? '';
    return { text: `echo: ${last}`, model: this.model, stopReason: 'endTurn', usage: this.usage };
  }
}

export interface NativeCall {
  name: string;
  args: JsonObject;
  ctx: ToolCallContext;
}

/** A pipeline with stand-in native tools that record how they were invoked. */
export function createTestPipeline(results: Partial<Record<string, ToolResult>> = {}) {
  const registry = new ToolRegistry();
  const events = new RunEventStream();
  const pipeline = new ToolPipeline({ registry, events });
  const scope = createGlobalScope('test');
  const calls: NativeCall[] = [];
  const effects = {
    list_files: 'read',
    read_file: 'read',
    search: 'read',
    write_file: 'write',
    edit_file: 'write',
    run_command: 'execute',
    ask_user: 'pure',
  } as const;
  for (const [name, effect] of Object.entries(effects)) {
    registry.register(
      {
        definition: {
          name,
          description: `native ${name}`,
          inputSchema: { type: 'object' },
          effect,
          source: { kind: 'native', id: '' },
        },
        async invoke(args, ctx) {
          calls.push({ name, args, ctx });
          return (
            results[name] ?? {
              content: JSON.stringify({ tool: name, args }),
              structured: { tool: name, args },
            }
          );
        },
      },
      scope,
    );
  }
  return { registry, events, pipeline, scope, calls };
}
