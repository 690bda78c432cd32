/**
 * Following a server's `notifications/tools/list_changed` (legacy era; a modern server would send
 * it on a subscription CLAT does not open). Before the registries freeze, the tools that changed
 * are registered again and the ones gone are removed, so a server that finishes loading its tools
 * after `initialize` is seen whole. After the freeze nothing may change (mcp-integration.txt: "the
 * project-scope registry does not thaw between runs"): the mount shows that the list changed and
 * that a restart picks it up, instead of leaving the user with a stale list and no word about it.
 * @module
 */
import { delay, errorMessage, jsonDepthExceeds, type Lease, LIMITS } from '@clat/kernel';
import { quoted } from './client-diagnostics.js';
import type { McpToolDescriptor } from './client-types.js';

/** A server that answers every `tools/list` with another change is re-listed at most this often. */
export const RELIST_INTERVAL_MS = 1_000;

/** What one change did to the registered tools (names as the server lists them). */
export interface ToolListChange {
  added: string[];
  removed: string[];
  changed: string[];
  /** True when the registries were frozen: nothing was applied. */
  frozen: boolean;
}

export interface ToolListSyncOptions {
  server: string;
  /** The server's tools as the entry keeps them (its includeTools/excludeTools applied). */
  list(): Promise<McpToolDescriptor[]>;
  /** Registers one tool as the mount does; its lease, or undefined when it was skipped. */
  register(tool: McpToolDescriptor): Lease | undefined;
  /** A listed tool is gone or changed (its lease, if it had one, already released). */
  forget(name: string): void;
  frozen(): boolean;
  /** False once the mount is closing or failed: late notifications change nothing. */
  active(): boolean;
  onChange(change: ToolListChange): void;
  onDiagnostic(message: string): void;
  signal: AbortSignal;
}

/**
 * Everything a model or a person sees of a tool: a change in any of it is a changed tool. A tool
 * nested deeper than any registrable schema (never registered) is not serialised: JSON.stringify
 * would overflow the stack on it.
 */
function fingerprint(tool: McpToolDescriptor): string {
  const seen = [
    tool.description,
    tool.inputSchema,
    tool.outputSchema,
    tool.annotations,
    tool.taskSupport,
  ];
  if (jsonDepthExceeds(seen, LIMITS.toolSchemaDepth + 2)) return TOO_DEEP;
  return JSON.stringify(seen);
}

const TOO_DEEP = '(nested too deep to register)';

export class ToolListSync {
  readonly #options: ToolListSyncOptions;
  /** The list the registry reflects: every listed tool, registered or skipped. */
  #listed = new Map<string, string>();
  readonly #leases = new Map<string, Lease>();
  #running: Promise<void> | undefined;
  #again = false;

  constructor(options: ToolListSyncOptions) {
    this.#options = options;
  }

  /** Records the mount's first registration of `tool` (`lease` undefined: it was skipped). */
  track(tool: McpToolDescriptor, lease: Lease | undefined): void {
    this.#listed.set(tool.name, fingerprint(tool));
    if (lease !== undefined) this.#leases.set(tool.name, lease);
  }

  /** How many tools are registered now. */
  get registered(): number {
    return this.#leases.size;
  }

  /**
   * The server said its list changed. Re-lists once; notifications that arrive meanwhile cost one
   * more re-list after {@link RELIST_INTERVAL_MS}, however many they are.
   */
  changed(): void {
    if (!this.#options.active()) return;
    if (this.#running !== undefined) {
      this.#again = true;
      return;
    }
    this.#running = this.#run().finally(() => {
      this.#running = undefined;
    });
  }

  /** Resolves once no re-list is running (tests, and a close that wants a quiet mount). */
  async settled(): Promise<void> {
    while (this.#running !== undefined) await this.#running;
  }

  async #run(): Promise<void> {
    const { server, signal, onDiagnostic } = this.#options;
    for (;;) {
      this.#again = false;
      try {
        await this.#syncOnce();
      } catch (error) {
        if (!this.#options.active() || signal.aborted) return;
        onDiagnostic(
          `re-listing the tools of MCP server ${quoted(server)} after it announced a change failed: ${errorMessage(error)}`,
        );
      }
      if (!this.#again || !this.#options.active()) return;
      try {
        await delay(RELIST_INTERVAL_MS, signal);
      } catch {
        return;
      }
    }
  }

  async #syncOnce(): Promise<void> {
    const { server, onDiagnostic } = this.#options;
    const tools = await this.#options.list();
    if (!this.#options.active()) return;
    if (tools.length > LIMITS.toolsPerServer) {
      onDiagnostic(
        `MCP server ${quoted(server)} now keeps ${tools.length} tools, over the limit of ${LIMITS.toolsPerServer} per server; its earlier list stays registered`,
      );
      return;
    }
    const next = new Map(tools.map((tool) => [tool.name, tool]));
    const change: ToolListChange = { added: [], removed: [], changed: [], frozen: false };
    for (const [name, print] of this.#listed) {
      const tool = next.get(name);
      if (tool === undefined) change.removed.push(name);
      else if (fingerprint(tool) !== print) change.changed.push(name);
    }
    for (const name of next.keys()) if (!this.#listed.has(name)) change.added.push(name);
    if (change.added.length + change.removed.length + change.changed.length === 0) return;
    if (this.#options.frozen()) {
      change.frozen = true;
      this.#options.onChange(change);
      return;
    }
    for (const name of [...change.removed, ...change.changed]) {
      const lease = this.#leases.get(name);
      this.#leases.delete(name);
      this.#listed.delete(name);
      if (lease !== undefined) await lease.release();
      this.#options.forget(name);
    }
    for (const name of [...change.changed, ...change.added]) {
      const tool = next.get(name) as McpToolDescriptor;
      this.track(tool, this.#options.register(tool));
    }
    this.#options.onChange(change);
  }
}
