import { describe, expect, it } from 'vitest';
import type { PromptContribution } from '../prompt-registry.js';
import type { MountEntry } from './connector.js';
import { collectMountSources, type MountSource, type MountSourceResult } from './mount-source.js';

function entry(name: string, origin: string): MountEntry {
  return { kind: 'custom', name, origin, config: { name } };
}

function prompt(owner: string): PromptContribution {
  return { name: `p_${owner}`, source: { kind: 'package', id: owner }, text: `about ${owner}` };
}

/** A source that records the names it saw as taken and returns `result`. */
function source(label: string, result: Partial<MountSourceResult>, seen?: string[][]): MountSource {
  return {
    label,
    async collect(ctx) {
      seen?.push([...ctx.taken]);
      return { entries: [], issues: [], notes: [], prompts: [], ...result };
    },
  };
}

describe('collectMountSources', () => {
  it('keeps the first entry of a name and notes each one a name taken before replaced', async () => {
    const seen: string[][] = [];
    const out = await collectMountSources(
      [
        source('plugins.json entry', { entries: [entry('a', 'plugins.json')] }, seen),
        source(
          'installed package',
          {
            entries: [entry('a', 'package'), entry('user', 'package'), entry('b', 'package')],
            notes: ['b wrote 1 file(s)'],
          },
          seen,
        ),
        source('pack server', { entries: [entry('c', 'pack')] }, seen),
      ],
      { taken: ['user'] },
    );
    expect(out.entries.map((e) => `${e.origin}:${e.name}`)).toEqual([
      'plugins.json:a',
      'package:b',
      'pack:c',
    ]);
    // Each source sees the names before it, the distribution's own first.
    expect(seen).toEqual([['user'], ['user', 'a'], ['user', 'a', 'b']]);
    // A source's own notes come before the notes on its replaced entries.
    expect(out.notes).toEqual([
      'b wrote 1 file(s)',
      'installed package "a" is replaced by the same-named entry before it',
      'installed package "user" is replaced by the same-named entry before it',
    ]);
  });

  it('keeps a prompt only when its own entry was added', async () => {
    const out = await collectMountSources(
      [
        source('installed package', {
          entries: [entry('shadowed', 'package'), entry('kept', 'package')],
          prompts: [prompt('shadowed'), prompt('kept'), prompt('elsewhere')],
        }),
        // A later source cannot bring a prompt for an entry of an earlier one.
        source('other', { prompts: [prompt('kept')] }),
      ],
      { taken: ['shadowed', 'elsewhere'] },
    );
    expect(out.prompts).toEqual([prompt('kept')]);
  });

  it('passes issues through in source order and returns empty lists for no sources', async () => {
    const issue = (file: string) => ({ file, path: '(root)', message: 'bad' });
    const out = await collectMountSources([
      source('one', { issues: [issue('one.json')] }),
      source('two', { issues: [issue('two.json')] }),
    ]);
    expect(out.issues.map((i) => i.file)).toEqual(['one.json', 'two.json']);
    expect(await collectMountSources([])).toEqual({
      entries: [],
      issues: [],
      notes: [],
      prompts: [],
    });
  });

  it('stops at the first source that throws', async () => {
    const later = source('later', { entries: [entry('x', 'later')] });
    const failing: MountSource = {
      label: 'failing',
      collect: () => Promise.reject(new Error('registry unreadable')),
    };
    await expect(collectMountSources([failing, later])).rejects.toThrow('registry unreadable');
  });
});
