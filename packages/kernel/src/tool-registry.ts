/**
 * The one tool registry. Names are unique and first-come: a collision is reported and the
 * newcomer skipped, never replacing a native or earlier extension tool. After freeze() every
 * registration is rejected; leases can still revoke.
 * @module
 */
import type { Effect, PermissionMode } from './effects.js';
import { KernelError, KernelErrorCode } from './errors.js';
import type { ToolSourceRef } from './events.js';
import { type JsonObject, jsonDepthExceeds } from './json.js';
import { LIMITS } from './limits.js';
import type { Approver, UserAsker } from './ports.js';
import type { Lease, Scope } from './scope.js';
import type { ToolContentBlock } from './tool-content.js';

export interface ToolDefinition {
  /** Registry name, e.g. `read_file` or `mcp_fs_read_file`. */
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  inputSchema: JsonObject;
  effect: Effect;
  source: ToolSourceRef;
  /** The tool's own name at its source (MCP tool name, WASM export name). */
  sourceName?: string;
}

/**
 * What a tool call means for its run: the one place a tool reads the run's id, permission mode,
 * approver and question frontend (the latter two absent when headless).
 */
export interface ToolRun {
  readonly id: string;
  readonly mode: PermissionMode;
  readonly approver?: Approver | undefined;
  readonly asker?: UserAsker | undefined;
  /** The run's cancel signal. */
  readonly signal: AbortSignal;
}

export interface ToolCallContext {
  callId: string;
  run: ToolRun;
  /** This call's cancel signal (the run's, or one linked to it for a plugin's host call). */
  signal: AbortSignal;
  /** Set when a plugin (not the model) asked for this call: tools then apply the stricter plugin fence. */
  requestedBy?: ToolSourceRef;
  /**
   * Reports progress or a long-running task's status; the pipeline turns it into a
   * `tool.progress` run event. Absent outside the pipeline.
   */
  progress?: (update: ToolProgress) => void;
}

/** A tool's progress report. Texts come from the tool's source and are untrusted. */
export interface ToolProgress {
  /** Work done so far; increases with each report. */
  progress?: number;
  /** Total work, when known. */
  total?: number;
  message?: string;
  /** A long-running task behind the call: its id and status (`working`, `completed`, …). */
  task?: { id: string; status: string };
}

export interface ToolResult {
  /** What a text-only reader sees (the model, `clat call`); see `renderToolContent`. */
  content: string;
  /** Every content block the tool returned, when it returned more than plain text. */
  blocks?: readonly ToolContentBlock[];
  /** Structured output, when the tool declared one. */
  structured?: unknown;
  /** A tool-level failure the model should see (not a host failure). */
  isError?: boolean;
  /**
   * Size of the whole result (every block and the structured output), counted once by the tool
   * that built it; the pipeline bounds this instead of `content` when set.
   */
  bytes?: number;
}

export interface Tool {
  definition: ToolDefinition;
  invoke(args: JsonObject, ctx: ToolCallContext): Promise<ToolResult>;
}

export interface RegistryDiagnostic {
  name: string;
  source: ToolSourceRef;
  code: KernelErrorCode;
  message: string;
}

const TRUNCATED_SUFFIX = '… [truncated by host]';

function ownerLabel(source: ToolSourceRef): string {
  return source.id === '' ? source.kind : `${source.kind}:${source.id}`;
}

/** A name → entry map with first-come ownership, freeze and per-owner revocation. */
export class NamedRegistry<T extends { name: string; source: ToolSourceRef }> {
  readonly #what: string;
  readonly #entries = new Map<string, T>();
  readonly #diagnostics: RegistryDiagnostic[] = [];
  #frozen = false;

  constructor(what: string) {
    this.#what = what;
  }

  get frozen(): boolean {
    return this.#frozen;
  }

  freeze(): void {
    this.#frozen = true;
  }

  /** Adds an entry owned by `scope`; the returned lease removes it (only if still the owner's). */
  add(entry: T, scope: Scope): Lease {
    if (this.#frozen) {
      throw this.#reject(
        entry,
        KernelErrorCode.REGISTRY_FROZEN,
        `${this.#what} registry is frozen; ${ownerLabel(entry.source)} cannot register ${JSON.stringify(entry.name)}`,
      );
    }
    const existing = this.#entries.get(entry.name);
    if (existing !== undefined) {
      throw this.#reject(
        entry,
        KernelErrorCode.REGISTRY_DUPLICATE_NAME,
        `${this.#what} ${JSON.stringify(entry.name)} is already registered by ${ownerLabel(existing.source)}; ${ownerLabel(entry.source)} cannot replace it`,
      );
    }
    this.#entries.set(entry.name, entry);
    return scope.lease(ownerLabel(entry.source), () => {
      if (this.#entries.get(entry.name) === entry) this.#entries.delete(entry.name);
    });
  }

  get(name: string): T | undefined {
    return this.#entries.get(name);
  }

  has(name: string): boolean {
    return this.#entries.has(name);
  }

  /** Entries in registration order. */
  list(): T[] {
    return [...this.#entries.values()];
  }

  /** Rejected registrations and truncations, oldest first. */
  diagnostics(): readonly RegistryDiagnostic[] {
    return this.#diagnostics;
  }

  /** Records a note about an entry without rejecting it. */
  note(entry: T, code: KernelErrorCode, message: string): void {
    this.#diagnostics.push({ name: entry.name, source: entry.source, code, message });
  }

  #reject(entry: T, code: KernelErrorCode, message: string): KernelError {
    this.note(entry, code, message);
    return new KernelError(code, message, { data: { name: entry.name, source: entry.source } });
  }
}

interface ToolEntry {
  name: string;
  source: ToolSourceRef;
  tool: Tool;
}

export class ToolRegistry {
  readonly #registry = new NamedRegistry<ToolEntry>('tool');

  get frozen(): boolean {
    return this.#registry.frozen;
  }

  freeze(): void {
    this.#registry.freeze();
  }

  /**
   * Registers a tool owned by `scope`. Throws REGISTRY_DUPLICATE_NAME, REGISTRY_FROZEN or, for an
   * input schema nested deeper than the limit, LIMIT_EXCEEDED (each also recorded in
   * diagnostics()). Over-long descriptions are cut and noted.
   */
  register(tool: Tool, scope: Scope): Lease {
    const definition = tool.definition;
    const entry: ToolEntry = { name: definition.name, source: definition.source, tool };
    // Every reader of a registered schema (JSON output, a gateway's tool listing, the model
    // request, validators) recurses: one nested 20,000 deep overflows the stack. A frozen
    // registry answers REGISTRY_FROZEN first, as for any tool.
    if (!this.frozen && jsonDepthExceeds(definition.inputSchema, LIMITS.toolSchemaDepth)) {
      const message = `input schema of tool ${JSON.stringify(definition.name)} nests more than ${LIMITS.toolSchemaDepth} levels deep (the limit); ${ownerLabel(definition.source)} cannot register it`;
      this.#registry.note(entry, KernelErrorCode.LIMIT_EXCEEDED, message);
      throw new KernelError(KernelErrorCode.LIMIT_EXCEEDED, message, {
        data: { name: definition.name, source: definition.source },
      });
    }
    if (definition.description.length > LIMITS.toolDescriptionChars) {
      let cut = LIMITS.toolDescriptionChars - TRUNCATED_SUFFIX.length;
      // Never half of a surrogate pair: JSON output would carry a lone surrogate.
      const last = definition.description.charCodeAt(cut - 1);
      if (last >= 0xd800 && last <= 0xdbff) cut -= 1;
      entry.tool = {
        definition: {
          ...definition,
          description: definition.description.slice(0, cut) + TRUNCATED_SUFFIX,
        },
        invoke: (args, ctx) => tool.invoke(args, ctx),
      };
      this.#registry.note(
        entry,
        KernelErrorCode.LIMIT_EXCEEDED,
        `description of tool ${JSON.stringify(definition.name)} was cut to ${LIMITS.toolDescriptionChars} characters`,
      );
    }
    return this.#registry.add(entry, scope);
  }

  get(name: string): Tool | undefined {
    return this.#registry.get(name)?.tool;
  }

  has(name: string): boolean {
    return this.#registry.has(name);
  }

  list(): ToolDefinition[] {
    return this.#registry.list().map((entry) => entry.tool.definition);
  }

  diagnostics(): readonly RegistryDiagnostic[] {
    return this.#registry.diagnostics();
  }
}
