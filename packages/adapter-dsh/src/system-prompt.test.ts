import { describe, expect, it } from 'vitest';
import { EventBus } from './event-bus.js';
import {
  ABSENT_HOST_VARIABLE,
  RUNTIME_CONTEXT_HEADER,
  SystemPromptService,
} from './system-prompt.js';

function service() {
  const errors: unknown[] = [];
  const events = new EventBus((_event, error) => errors.push(error));
  const disposers: (() => unknown)[] = [];
  const prompt = new SystemPromptService({
    events,
    track: (dispose) => disposers.push(dispose),
    defaultCwd: () => '/default/cwd',
  });
  return { prompt, events, errors, disposers };
}

describe('SystemPromptService', () => {
  it('orders sections, interpolates strictly, keeps literal sections, and heads the runtime context', async () => {
    const { prompt } = service();
    prompt.section({ name: 'b', order: 2, text: 'Root {{cwd}}, model {{model}}, tier {{tier}}.' });
    prompt.section({ name: 'a', order: 1, text: () => 'First.' });
    prompt.section({ name: 'lit', order: 3, text: 'Keep {{this}} literal.', interpolate: false });
    prompt.variable('tier', () => 'gold');
    prompt.context({ name: 'state', order: 0, text: 'Open: {{tier}}' });
    const rendered = await prompt.render({ cwd: '/p' });
    expect(rendered.prompt).toBe(
      `First.\n\nRoot /p, model ${ABSENT_HOST_VARIABLE}, tier gold.\n\nKeep {{this}} literal.`,
    );
    expect(rendered.context).toBe(`${RUNTIME_CONTEXT_HEADER}\n\nOpen: gold`);
    expect((await prompt.render()).prompt).toContain('Root /default/cwd');
  });

  it('throws on unknown or malformed variables, duplicates and two complete sections', async () => {
    const { prompt } = service();
    prompt.section({ name: 'x', order: 0, text: 'Hi {{nobody}}' });
    await expect(prompt.render()).rejects.toThrow(
      /unknown prompt variable "\{\{nobody\}\}" in section "x"/,
    );
    expect(() => prompt.section({ name: 'x', order: 1, text: 'again' })).toThrow(
      /already registered/,
    );
    expect(() => prompt.variable('Bad-Name', () => '')).toThrow(/invalid prompt variable name/);

    const two = service().prompt;
    two.section({ name: 'c1', order: 0, text: 'one', complete: true });
    two.section({ name: 'c2', order: 1, text: 'two', complete: true });
    await expect(two.render()).rejects.toThrow(/multiple complete prompt sections/);

    const malformed = service().prompt;
    malformed.section({ name: 'm', order: 0, text: 'a {{ bad name }} b' });
    await expect(malformed.render()).rejects.toThrow(/malformed prompt variable reference/);
  });

  it('keeps only a single complete section, honours suppression, and disposes registrations', async () => {
    const { prompt, disposers, events } = service();
    let changes = 0;
    events.on('system-prompt/change', () => {
      changes += 1;
    });
    prompt.section({ name: 'normal', order: 0, text: 'normal' });
    const removeComplete = prompt.section({
      name: 'full',
      order: 1,
      text: 'only me',
      complete: true,
    });
    prompt.context({ name: 'ctx', order: 0, text: 'ctx' });
    const unsuppress = prompt.suppressRuntimeContext();
    expect(await prompt.render()).toMatchObject({ prompt: 'only me', context: '' });
    removeComplete();
    unsuppress();
    expect(await prompt.render()).toMatchObject({
      prompt: 'normal',
      context: `${RUNTIME_CONTEXT_HEADER}\n\nctx`,
    });
    expect(changes).toBe(6);
    expect(disposers).toHaveLength(4);
  });

  it('lets system-prompt/assemble listeners transform the assembly (waterfall)', async () => {
    const { prompt, events } = service();
    prompt.section({ name: 's', order: 0, text: 'base' });
    prompt.tools(() => ({
      schemas: [
        { name: 'zeta', description: 'z', parameters: { type: 'object' } },
        { name: 'alpha', description: 'a', parameters: { type: 'object' }, deferLoading: true },
      ],
    }));
    events.on(
      'system-prompt/assemble',
      async (assembly: unknown, _context: unknown, next: unknown) => {
        const value = assembly as { sections: { name: string; text: string }[] };
        value.sections.push({ name: 'added', text: 'added by a listener' });
        return (next as () => unknown)();
      },
    );
    const rendered = await prompt.render();
    expect(rendered.prompt).toBe('base\n\nadded by a listener');
    expect(rendered.assembly.tools.map((tool) => [tool.name, tool.deferLoading])).toEqual([
      ['alpha', true],
      ['zeta', undefined],
    ]);
  });
});

describe('EventBus', () => {
  it('emits with a leading this-arg, prepends, fires once, and reports listener failures', () => {
    const errors: unknown[] = [];
    const bus = new EventBus((_event, error) => errors.push(error));
    const seen: string[] = [];
    const self = { id: 'self' };
    bus.on('e', function (this: unknown, value: unknown) {
      seen.push(`a:${(this as { id?: string })?.id}:${String(value)}`);
    });
    bus.on('e', () => seen.push('first'), true);
    bus.once('e', () => seen.push('once'));
    bus.on('e', () => {
      throw new Error('listener broke');
    });
    bus.emit(self, 'e', 1);
    bus.emit('e', 2);
    expect(seen).toEqual(['first', 'a:self:1', 'once', 'first', 'a:undefined:2']);
    expect(errors).toHaveLength(2);
  });

  it('serial and bail stop at the first meaningful result; parallel aggregates failures', async () => {
    const bus = new EventBus(() => {});
    bus.on('q', () => null);
    bus.on('q', () => false);
    bus.on('q', () => 'answer');
    bus.on('q', () => 'late');
    expect(bus.bail('q')).toBe('answer');
    expect(await bus.serial('q')).toBe('answer');
    bus.on('p', async () => {
      throw new Error('one');
    });
    bus.on('p', async () => 'fine');
    await expect(bus.parallel('p')).rejects.toBeInstanceOf(AggregateError);
    expect(() => bus.waterfall('w', 'no callback')).toThrow(/final callback/);
  });
});
