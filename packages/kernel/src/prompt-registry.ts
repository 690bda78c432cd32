/**
 * System-prompt contributions from plugins (marked DSH prompts, manifest prompts). Same rules as
 * the tool registry: first come, collisions reported and skipped, frozen at the first run.
 * @module
 */
import type { KernelErrorCode } from './errors.js';
import type { ToolSourceRef } from './events.js';
import type { Lease, Scope } from './scope.js';
import { NamedRegistry, type RegistryDiagnostic } from './tool-registry.js';

export interface PromptContribution {
  /** Unique name, e.g. `mcp_todo_dsh_system_prompt`. */
  name: string;
  source: ToolSourceRef;
  text: string;
}

export class PromptRegistry {
  readonly #registry = new NamedRegistry<PromptContribution>('prompt');

  get frozen(): boolean {
    return this.#registry.frozen;
  }

  freeze(): void {
    this.#registry.freeze();
  }

  register(prompt: PromptContribution, scope: Scope): Lease {
    return this.#registry.add(prompt, scope);
  }

  get(name: string): PromptContribution | undefined {
    return this.#registry.get(name);
  }

  list(): PromptContribution[] {
    return this.#registry.list();
  }

  /** Non-empty contributions joined in registration order. */
  assemble(): string {
    return this.list()
      .map((prompt) => prompt.text.trim())
      .filter((text) => text.length > 0)
      .join('\n\n');
  }

  note(prompt: PromptContribution, code: KernelErrorCode, message: string): void {
    this.#registry.note(prompt, code, message);
  }

  diagnostics(): readonly RegistryDiagnostic[] {
    return this.#registry.diagnostics();
  }
}
