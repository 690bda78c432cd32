/**
 * DSH's `ctx.systemPrompt` registry and its rendering into the one marked MCP prompt.
 * Registration, ordering, complete sections, variables, contexts, tool providers, change events
 * and the `system-prompt/assemble` waterfall follow DSH; strict `{{var}}` interpolation too.
 * @module
 */
import type { EventBus } from './event-bus.js';

const VARIABLE_NAME = /^[a-z][a-z0-9_]*$/;

/** Per-assembly context: the host-supplied `cwd`, `provider`, `model` plus plugin variables. */
export interface AssembleContext {
  cwd?: string;
  provider?: string;
  model?: string;
  variables?: Record<string, string | undefined>;
  signal?: AbortSignal;
  [key: string]: unknown;
}

type TextSource = string | ((context: AssembleContext) => string);

export interface PromptSection {
  readonly name: string;
  readonly order: number;
  readonly text: TextSource;
  /** `false` keeps `{{…}}` literal. */
  readonly interpolate?: boolean;
  /** A complete section replaces every other section. */
  readonly complete?: boolean;
}

export interface PromptContextEntry {
  readonly name: string;
  readonly order: number;
  readonly text: TextSource;
}

export interface PromptToolSchema {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  deferLoading?: true;
}

export type PromptToolProvider = (context: AssembleContext) => {
  readonly schemas: readonly PromptToolSchema[];
  readonly knownNames?: readonly string[];
};

export type PromptVariableProvider = (context: AssembleContext) => string | undefined;

export interface PromptAssembly {
  sections: { name: string; text: string; interpolate?: boolean }[];
  contexts: { name: string; text: string }[];
  tools: PromptToolSchema[];
  variables: Record<string, string | undefined>;
}

export interface RenderedPrompt {
  /** Sections joined; the system prompt proper. */
  prompt: string;
  /** The runtime-context body (with its header), or empty. */
  context: string;
  assembly: PromptAssembly;
}

/** The header DSH puts above a non-empty runtime-context body. */
export const RUNTIME_CONTEXT_HEADER =
  'Current runtime context. This snapshot supersedes earlier runtime-context snapshots.';

/** What the host leaves out is rendered as this instead of failing the assembly. */
export const ABSENT_HOST_VARIABLE = 'unknown';

export interface SystemPromptOptions {
  events: EventBus;
  /** Registers a disposer with the plugin's cleanup stack. */
  track: (dispose: () => unknown, label: string) => void;
  /** Default for `{{cwd}}` when the host passes none. */
  defaultCwd: () => string;
}

export class SystemPromptService {
  readonly #events: EventBus;
  readonly #track: SystemPromptOptions['track'];
  readonly #defaultCwd: () => string;
  readonly #sections = new Map<string, PromptSection>();
  readonly #contexts = new Map<string, PromptContextEntry>();
  readonly #toolProviders: PromptToolProvider[] = [];
  readonly #variables = new Map<string, PromptVariableProvider>();
  #suppressors = 0;

  constructor(options: SystemPromptOptions) {
    this.#events = options.events;
    this.#track = options.track;
    this.#defaultCwd = options.defaultCwd;
  }

  section(section: PromptSection): () => void {
    validateEntry('section', section);
    if (this.#sections.has(section.name)) {
      throw new Error(`prompt section "${section.name}" is already registered`);
    }
    this.#sections.set(section.name, section);
    this.#changed();
    return this.#disposer(`prompt section ${section.name}`, () =>
      this.#sections.delete(section.name),
    );
  }

  context(entry: PromptContextEntry): () => void {
    validateEntry('context', entry);
    if (this.#contexts.has(entry.name)) {
      throw new Error(`prompt context "${entry.name}" is already registered`);
    }
    this.#contexts.set(entry.name, entry);
    this.#changed();
    return this.#disposer(`prompt context ${entry.name}`, () => this.#contexts.delete(entry.name));
  }

  suppressRuntimeContext(): () => void {
    this.#suppressors += 1;
    this.#changed();
    return this.#disposer('runtime-context suppression', () => {
      this.#suppressors = Math.max(0, this.#suppressors - 1);
      return true;
    });
  }

  tools(provider: PromptToolProvider): () => void {
    if (typeof provider !== 'function') {
      throw new TypeError('systemPrompt.tools: provider must be a function');
    }
    this.#toolProviders.push(provider);
    this.#changed();
    return this.#disposer('prompt tool provider', () => {
      const index = this.#toolProviders.indexOf(provider);
      if (index < 0) return false;
      this.#toolProviders.splice(index, 1);
      return true;
    });
  }

  variable(name: string, provider: PromptVariableProvider): () => void {
    if (!VARIABLE_NAME.test(name)) {
      throw new Error(
        `invalid prompt variable name "${name}" (must match ${String(VARIABLE_NAME)})`,
      );
    }
    if (typeof provider !== 'function') {
      throw new TypeError('systemPrompt.variable: provider must be a function');
    }
    if (this.#variables.has(name))
      throw new Error(`prompt variable "${name}" is already registered`);
    this.#variables.set(name, provider);
    this.#changed();
    return this.#disposer(`prompt variable ${name}`, () => this.#variables.delete(name));
  }

  /** True when anything would make the marked prompt worth listing. */
  hasContributions(): boolean {
    return this.#sections.size > 0 || this.#contexts.size > 0 || this.#toolProviders.length > 0;
  }

  async assemble(context: AssembleContext = {}): Promise<PromptAssembly> {
    const variables: Record<string, string | undefined> = { ...(context.variables ?? {}) };
    variables.cwd = nonBlank(context.cwd) ?? this.#defaultCwd();
    variables.provider = nonBlank(context.provider) ?? ABSENT_HOST_VARIABLE;
    variables.model = nonBlank(context.model) ?? ABSENT_HOST_VARIABLE;
    for (const [name, provider] of this.#variables) variables[name] = provider(context);

    const definitions = [...this.#sections.values()].sort((a, b) => a.order - b.order);
    const complete = definitions.filter((section) => section.complete === true);
    if (complete.length > 1) {
      const names = complete.map((section) => JSON.stringify(section.name)).join(', ');
      throw new Error(`multiple complete prompt sections are active: ${names}`);
    }
    const sections = definitions.map((section) => ({
      name: section.name,
      text: resolveText(section.text, context),
      ...(section.interpolate === undefined ? {} : { interpolate: section.interpolate }),
    }));
    const contexts =
      this.#suppressors > 0
        ? []
        : [...this.#contexts.values()]
            .sort((a, b) => a.order - b.order)
            .map((entry) => ({ name: entry.name, text: resolveText(entry.text, context) }));
    const tools = this.#toolProviders
      .flatMap((provider) =>
        provider(context).schemas.map((schema) => ({
          name: schema.name,
          description: schema.description,
          parameters: structuredClone(schema.parameters),
          ...(schema.deferLoading === true ? { deferLoading: true as const } : {}),
        })),
      )
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const assembly: PromptAssembly = { sections, contexts, tools, variables };
    const transformed = (await this.#events.waterfall(
      this,
      'system-prompt/assemble',
      assembly,
      context,
      () => Promise.resolve(assembly),
    )) as PromptAssembly;
    const onlyComplete = complete[0];
    return {
      ...transformed,
      sections:
        onlyComplete === undefined
          ? transformed.sections
          : transformed.sections.filter((section) => section.name === onlyComplete.name),
      contexts: this.#suppressors > 0 ? [] : transformed.contexts,
    };
  }

  async render(context: AssembleContext = {}): Promise<RenderedPrompt> {
    const assembly = await this.assemble(context);
    const prompt = assembly.sections
      .map((section) =>
        section.interpolate === false
          ? section.text
          : interpolate(section, assembly.variables, 'section'),
      )
      .filter((text) => text.length > 0)
      .join('\n\n');
    const body = assembly.contexts
      .map((entry) => interpolate(entry, assembly.variables, 'context'))
      .filter((text) => text.length > 0)
      .join('\n\n');
    return {
      prompt,
      context: body.length === 0 ? '' : `${RUNTIME_CONTEXT_HEADER}\n\n${body}`,
      assembly,
    };
  }

  #disposer(label: string, remove: () => boolean): () => void {
    let active = true;
    const dispose = () => {
      if (!active) return;
      active = false;
      if (remove()) this.#changed();
    };
    this.#track(dispose, label);
    return dispose;
  }

  #changed(): void {
    this.#events.emit('system-prompt/change');
  }
}

function nonBlank(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

function resolveText(text: TextSource, context: AssembleContext): string {
  const value = typeof text === 'function' ? text(context) : text;
  if (typeof value !== 'string') throw new TypeError('prompt text must be a string');
  return value;
}

function validateEntry(
  kind: string,
  entry: { name?: unknown; order?: unknown; text?: unknown },
): void {
  if (typeof entry !== 'object' || entry === null)
    throw new TypeError(`prompt ${kind} must be an object`);
  if (typeof entry.name !== 'string' || entry.name === '') {
    throw new TypeError(`prompt ${kind} name must be a non-empty string`);
  }
  if (typeof entry.order !== 'number' || !Number.isFinite(entry.order)) {
    throw new TypeError(`prompt ${kind} "${entry.name}" order must be a finite number`);
  }
  if (typeof entry.text !== 'string' && typeof entry.text !== 'function') {
    throw new TypeError(`prompt ${kind} "${entry.name}" text must be a string or function`);
  }
}

/** Strict `{{name}}` substitution: malformed, unknown or valueless references throw. */
export function interpolate(
  input: { name: string; text: string },
  variables: Record<string, string | undefined>,
  kind: 'section' | 'context',
): string {
  const text = input.text;
  let out = '';
  let last = 0;
  for (let open = text.indexOf('{{'); open >= 0; open = text.indexOf('{{', last)) {
    const close = text.indexOf('}}', open + 2);
    const inner = close < 0 ? undefined : text.slice(open + 2, close);
    if (inner === undefined || inner.includes('{') || inner.includes('}')) {
      if (close >= 0) {
        throw new Error(
          `malformed prompt variable reference at "${text.slice(open, open + 16)}…" in ${kind} "${input.name}"`,
        );
      }
      out += text.slice(last, open + 2);
      last = open + 2;
      continue;
    }
    if (!VARIABLE_NAME.test(inner)) {
      throw new Error(
        `malformed prompt variable reference "{{${inner}}}" in ${kind} "${input.name}"`,
      );
    }
    if (!Object.hasOwn(variables, inner)) {
      const known = Object.keys(variables);
      throw new Error(
        `unknown prompt variable "{{${inner}}}" in ${kind} "${input.name}"; registered variables: ${known.length > 0 ? known.join(', ') : '(none)'}`,
      );
    }
    const value = variables[inner];
    if (value === undefined) {
      throw new Error(
        `prompt variable "{{${inner}}}" has no value for this assembly (${kind} "${input.name}")`,
      );
    }
    out += text.slice(last, open) + value;
    last = close + 2;
  }
  return out + text.slice(last);
}
