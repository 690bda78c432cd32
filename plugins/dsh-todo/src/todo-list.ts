/**
 * The todo document: a small JSON file in the project, parsed strictly so a hand-edited or
 * damaged file is reported (naming the file) instead of being silently overwritten.
 * @module
 */
import * as z from 'zod';

export const TodoItemSchema = z
  .object({
    id: z.number().int().positive(),
    text: z.string().min(1).max(500),
    done: z.boolean(),
  })
  .strict();

export const TodoDocumentSchema = z
  .object({ version: z.literal(1), items: z.array(TodoItemSchema) })
  .strict();

export type TodoItem = z.infer<typeof TodoItemSchema>;
export type TodoDocument = z.infer<typeof TodoDocumentSchema>;

export const EMPTY_DOCUMENT: TodoDocument = { version: 1, items: [] };

export class TodoFileError extends Error {
  readonly code = 'TODO_FILE_INVALID';
}

export function parseTodoDocument(file: string, text: string): TodoDocument {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new TodoFileError(`${file} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = TodoDocumentSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new TodoFileError(
      `${file}: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  return parsed.data;
}

export function serializeTodoDocument(document: TodoDocument): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

export function addItem(
  document: TodoDocument,
  text: string,
): { document: TodoDocument; item: TodoItem } {
  const id = document.items.reduce((max, item) => Math.max(max, item.id), 0) + 1;
  const item = { id, text, done: false };
  return { document: { version: 1, items: [...document.items, item] }, item };
}

export function completeItem(
  document: TodoDocument,
  id: number,
): { document: TodoDocument; item: TodoItem } {
  const existing = document.items.find((item) => item.id === id);
  if (existing === undefined) throw new Error(`todo #${id} does not exist`);
  const item = { ...existing, done: true };
  return {
    document: {
      version: 1,
      items: document.items.map((entry) => (entry.id === id ? item : entry)),
    },
    item,
  };
}

/** The short state line the system prompt's runtime context carries. */
export function summarize(document: TodoDocument): string {
  const open = document.items.filter((item) => !item.done);
  if (open.length === 0) return 'No open todos.';
  return `Open todos (${open.length}): ${open.map((item) => `#${item.id} ${item.text}`).join('; ')}`;
}
