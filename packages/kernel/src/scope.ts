/**
 * Scopes (Global → TrustedProject → Run, and one Plugin scope per mounted plugin) and revocable
 * leases. Close is idempotent, runs
 * pre-close hooks first, closes children before parents, then revokes leases and runs close
 * hooks in reverse registration order, each time-boxed and isolated; failures surface together.
 * @module
 */
import { errorMessage, KernelError, KernelErrorCode } from './errors.js';

export type ScopeKind = 'global' | 'trusted-project' | 'run' | 'plugin';

const CHILD_KIND: Record<ScopeKind, ScopeKind | undefined> = {
  global: 'trusted-project',
  'trusted-project': 'run',
  run: undefined,
  plugin: undefined,
};

/** An owned contribution (a tool, a prompt, a subscription) that its scope revokes on close. */
export interface Lease {
  readonly id: number;
  readonly owner: string;
  readonly released: boolean;
  /** Revokes now; a second call is a no-op. */
  release(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

type Hook = () => void | Promise<void>;

interface StackEntry {
  label: string;
  run: Hook;
}

export interface ScopeOptions {
  /** Time box of one close hook or lease release. */
  hookTimeoutMs?: number;
}

const DEFAULT_HOOK_TIMEOUT_MS = 10_000;

let nextLeaseId = 1;

export class Scope {
  readonly kind: ScopeKind;
  readonly name: string;
  readonly parent: Scope | undefined;
  readonly #hookTimeoutMs: number;
  readonly #preClose: StackEntry[] = [];
  readonly #stack: StackEntry[] = [];
  readonly #children = new Set<Scope>();
  readonly #values = new Map<string | symbol, unknown>();
  #closing: Promise<void> | undefined;
  #closed = false;

  constructor(kind: ScopeKind, name: string, parent?: Scope, options: ScopeOptions = {}) {
    this.kind = kind;
    this.name = name;
    this.parent = parent;
    this.#hookTimeoutMs =
      options.hookTimeoutMs ??
      (parent === undefined ? DEFAULT_HOOK_TIMEOUT_MS : parent.#hookTimeoutMs);
  }

  /** True once close() has started; new registrations are refused from then on. */
  get closed(): boolean {
    return this.#closing !== undefined || this.#closed;
  }

  /** Opens the next scope level (global → trusted-project → run). A project has one active run. */
  child(name: string, options: ScopeOptions = {}): Scope {
    this.#assertOpen('open a child scope');
    const kind = CHILD_KIND[this.kind];
    if (kind === undefined) {
      throw new KernelError(KernelErrorCode.INTERNAL, `a ${this.kind} scope cannot have children`);
    }
    if (kind === 'run') {
      const active = [...this.#children].find((child) => child.kind === 'run' && !child.closed);
      if (active !== undefined) {
        throw new KernelError(
          KernelErrorCode.RUN_ALREADY_ACTIVE,
          `run ${JSON.stringify(active.name)} is still active in project ${JSON.stringify(this.name)}`,
        );
      }
    }
    return this.#adopt(new Scope(kind, name, this, options));
  }

  /**
   * Opens the scope that owns one mounted plugin: its leases and close hooks. It closes on its
   * own (a plugin rejected after the freeze) or with this scope, before this scope's own leases.
   */
  pluginScope(name: string, options: ScopeOptions = {}): Scope {
    this.#assertOpen('open a plugin scope');
    if (this.kind === 'run' || this.kind === 'plugin') {
      throw new KernelError(
        KernelErrorCode.INTERNAL,
        `a ${this.kind} scope cannot own plugin ${JSON.stringify(name)}`,
      );
    }
    return this.#adopt(new Scope('plugin', name, this, options));
  }

  #adopt(child: Scope): Scope {
    this.#children.add(child);
    child.onClose(() => {
      this.#children.delete(child);
    });
    return child;
  }

  /** Stores a value visible to this scope and its descendants; children never write to parents. */
  provide(key: string | symbol, value: unknown): void {
    this.#assertOpen('provide a value');
    this.#values.set(key, value);
  }

  /** Reads a value from this scope or the nearest ancestor that has it. */
  lookup<T>(key: string | symbol): T | undefined {
    if (this.#values.has(key)) return this.#values.get(key) as T;
    return this.parent?.lookup<T>(key);
  }

  /** Runs before any child closes or lease is revoked (drain in-flight work here). */
  onPreClose(hook: Hook, label = 'pre-close hook'): void {
    this.#assertOpen('add a pre-close hook');
    this.#preClose.push({ label, run: hook });
  }

  /** Runs at close, in reverse registration order together with lease revocations. */
  onClose(hook: Hook, label = 'close hook'): void {
    this.#assertOpen('add a close hook');
    this.#stack.push({ label, run: hook });
  }

  /** Registers a revocable contribution owned by `owner`; `revoke` runs once, at release or close. */
  lease(owner: string, revoke: Hook): Lease {
    this.#assertOpen(`lease to ${owner}`);
    let released = false;
    let releasing: Promise<void> | undefined;
    const entry: StackEntry = {
      label: `lease of ${owner}`,
      run: () => lease.release(),
    };
    const lease: Lease = {
      id: nextLeaseId++,
      owner,
      get released() {
        return released;
      },
      release: () => {
        if (releasing === undefined) {
          released = true;
          const index = this.#stack.indexOf(entry);
          if (index !== -1) this.#stack.splice(index, 1);
          releasing = Promise.resolve().then(revoke);
        }
        return releasing;
      },
      [Symbol.asyncDispose]: () => lease.release(),
    };
    this.#stack.push(entry);
    return lease;
  }

  /** Closes children, then revokes leases and runs hooks LIFO. Idempotent; throws one AggregateError. */
  close(): Promise<void> {
    this.#closing ??= this.#doClose();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #doClose(): Promise<void> {
    const errors: unknown[] = [];
    for (const entry of this.#preClose.reverse()) await this.#runHook(entry, errors);
    this.#preClose.length = 0;
    const children = [...this.#children].reverse();
    const settled = await Promise.allSettled(children.map((child) => child.close()));
    for (const result of settled) if (result.status === 'rejected') errors.push(result.reason);
    while (this.#stack.length > 0) {
      const entry = this.#stack.pop() as StackEntry;
      await this.#runHook(entry, errors);
    }
    this.#values.clear();
    this.#closed = true;
    if (errors.length > 0) {
      throw new AggregateError(
        errors,
        `${errors.length} close step(s) of ${this.kind} scope ${JSON.stringify(this.name)} failed`,
      );
    }
  }

  async #runHook(entry: StackEntry, errors: unknown[]): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new KernelError(
              KernelErrorCode.SCOPE_CLOSE_FAILED,
              `${entry.label} in scope ${JSON.stringify(this.name)} took longer than ${this.#hookTimeoutMs} ms`,
            ),
          ),
        this.#hookTimeoutMs,
      );
    });
    try {
      await Promise.race([Promise.resolve().then(entry.run), timeout]);
    } catch (error) {
      errors.push(
        error instanceof KernelError
          ? error
          : new KernelError(
              KernelErrorCode.SCOPE_CLOSE_FAILED,
              `${entry.label} in scope ${JSON.stringify(this.name)} failed: ${errorMessage(error)}`,
              { cause: error },
            ),
      );
    } finally {
      clearTimeout(timer);
    }
  }

  #assertOpen(action: string): void {
    if (this.closed) {
      throw new KernelError(
        KernelErrorCode.SCOPE_CLOSED,
        `cannot ${action}: ${this.kind} scope ${JSON.stringify(this.name)} is closed`,
      );
    }
  }
}

/** Creates the root scope of a CLAT process. */
export function createGlobalScope(name = 'clat', options: ScopeOptions = {}): Scope {
  return new Scope('global', name, undefined, options);
}
