import { describe, expect, it } from 'vitest';
import {
  addItem,
  completeItem,
  EMPTY_DOCUMENT,
  parseTodoDocument,
  serializeTodoDocument,
  summarize,
} from './todo-list.js';

describe('todo document', () => {
  it('adds with increasing ids, completes, and round-trips', () => {
    const first = addItem(EMPTY_DOCUMENT, 'write tests');
    const second = addItem(first.document, 'ship');
    expect(second.item.id).toBe(2);
    const done = completeItem(second.document, 1);
    expect(done.item).toEqual({ id: 1, text: 'write tests', done: true });
    expect(parseTodoDocument('t.json', serializeTodoDocument(done.document))).toEqual(
      done.document,
    );
    expect(summarize(done.document)).toBe('Open todos (1): #2 ship');
  });

  it('reports a damaged file with its name instead of starting over', () => {
    expect(() =>
      parseTodoDocument('.clat-todo.json', '{"version":1,"items":[{"id":"x"}]}'),
    ).toThrow(/\.clat-todo\.json: items\.0\.id/);
    expect(() => parseTodoDocument('.clat-todo.json', 'nope')).toThrow(/not valid JSON/);
    expect(() => completeItem(EMPTY_DOCUMENT, 9)).toThrow(/#9 does not exist/);
  });
});
