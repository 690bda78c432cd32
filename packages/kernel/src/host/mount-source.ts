/**
 * The mount-source port: where a distribution's entries come from besides its own config (a
 * plugins file, a package store, a provider's pack). Sources run in order and the first entry of
 * a name wins: a later same-named entry is dropped with a note, and a static prompt comes only
 * with the entry it belongs to.
 * @module
 */
import type { ConfigIssue } from '../config-issues.js';
import type { PromptContribution } from '../prompt-registry.js';
import type { MountEntry } from './connector.js';

/** What a source sees when it is collected. */
export interface MountSourceContext {
  /** Names taken by the distribution's own entries and by the sources before this one. */
  readonly taken: ReadonlySet<string>;
}

/** What a source contributes; also what `collectMountSources` returns for all of them. */
export interface MountSourceResult {
  /** Entries in mount order. */
  entries: MountEntry[];
  issues: ConfigIssue[];
  /** One line per source decision, safe to show (pack on/off, a package's stray files). */
  notes: string[];
  /** Static system prompts; each belongs to the entry its `source.id` names. */
  prompts: PromptContribution[];
}

/** A provider of mount entries (`pluginsJsonSource`, `packageStoreSource`, `glmPackSource`…). */
export interface MountSource {
  /** What one of its entries is called in a note: `installed package`, `plugins.json entry`. */
  readonly label: string;
  collect(ctx: MountSourceContext): Promise<MountSourceResult>;
}

export interface CollectMountSourcesOptions {
  /** Names the distribution's own entries take (disabled ones too): they win over every source. */
  taken?: Iterable<string>;
}

/**
 * Collects `sources` in order. An entry whose name is already taken is dropped with a note naming
 * it; a prompt is kept only when its own entry was added (a shadowed package brings no prompt).
 */
export async function collectMountSources(
  sources: readonly MountSource[],
  options: CollectMountSourcesOptions = {},
): Promise<MountSourceResult> {
  const out: MountSourceResult = { entries: [], issues: [], notes: [], prompts: [] };
  const taken = new Set(options.taken ?? []);
  for (const source of sources) {
    const result = await source.collect({ taken });
    out.issues.push(...result.issues);
    out.notes.push(...result.notes);
    const added = new Set<string>();
    for (const entry of result.entries) {
      if (taken.has(entry.name)) {
        out.notes.push(
          `${source.label} ${JSON.stringify(entry.name)} is replaced by the same-named entry before it`,
        );
        continue;
      }
      taken.add(entry.name);
      added.add(entry.name);
      out.entries.push(entry);
    }
    for (const prompt of result.prompts) {
      if (added.has(prompt.source.id)) out.prompts.push(prompt);
    }
  }
  return out;
}
