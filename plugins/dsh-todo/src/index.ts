/**
 * dsh-todo: a DSH plugin (object form: `{ name, inject, Config, apply }`) served to CLAT by
 * @clat/adapter-dsh. The list lives in the project (default `.clat-todo.json`) and is only ever
 * read and written through CLAT host tools (`ctx.fs` → read_file/list_files/write_file), so every
 * change passes CLAT's permission pipeline and project fence, and `apply()` itself touches nothing
 * persistent (a disposable probe process can come and go harmlessly).
 * @module
 */
import { type DshPluginContext, defineTool } from '@clat/adapter-dsh';
import * as z from 'zod';
import {
  addItem,
  completeItem,
  EMPTY_DOCUMENT,
  parseTodoDocument,
  serializeTodoDocument,
  summarize,
  type TodoDocument,
} from './todo-list.js';

export const Config = z
  .object({
    /** Project-relative path of the todo file. */
    file: z.string().min(1).default('.clat-todo.json'),
  })
  .strict();

export type TodoConfig = z.infer<typeof Config>;

export const name = 'dsh-todo';
export const inject = ['tools', 'systemPrompt', 'fs', 'clat', 'userQuestions'];

export function apply(ctx: DshPluginContext, config: TodoConfig): void {
  const logger = ctx.logger('dsh-todo');
  /** Last state seen during a tool call; feeds the prompt's runtime context. */
  let lastSummary = 'Todo list not read yet in this session.';

  const load = async (): Promise<TodoDocument> => {
    const target = await ctx.fs.resolve(config.file);
    const info = await ctx.fs.stat(target);
    if (info === undefined) return EMPTY_DOCUMENT;
    return parseTodoDocument(config.file, await ctx.fs.readText(target));
  };
  const save = async (document: TodoDocument): Promise<void> => {
    const target = await ctx.fs.resolve(config.file);
    await ctx.fs.writeText(target, serializeTodoDocument(document));
    lastSummary = summarize(document);
  };

  ctx.systemPrompt.section({
    name: 'todo-guide',
    order: 50,
    text: [
      'You keep a todo list for multi-step work in the project at {{cwd}}.',
      `Use todo_add for each step, todo_done when a step is finished, and todo_list to review (file: ${config.file}).`,
    ].join('\n'),
  });
  ctx.systemPrompt.context({ name: 'todo-state', order: 50, text: () => lastSummary });

  ctx.tools.register(
    defineTool({
      name: 'todo_list',
      description: 'List the todo items of this project.',
      parameters: z.object({ include_done: z.boolean().optional() }).strict(),
      async execute(args) {
        const document = await load();
        lastSummary = summarize(document);
        const items =
          args.include_done === true ? document.items : document.items.filter((item) => !item.done);
        return { items, open: document.items.filter((item) => !item.done).length };
      },
    }),
  );

  ctx.tools.register(
    defineTool({
      name: 'todo_add',
      description: 'Add one todo item.',
      parameters: z.object({ text: z.string().min(1).max(500) }).strict(),
      async execute(args) {
        const { document, item } = addItem(await load(), args.text);
        await save(document);
        logger.info('added #%d', item.id);
        return { item };
      },
    }),
  );

  ctx.tools.register(
    defineTool({
      name: 'todo_done',
      description: 'Mark one todo item as done.',
      parameters: z.object({ id: z.number().int().positive() }).strict(),
      async execute(args) {
        const { document, item } = completeItem(await load(), args.id);
        await save(document);
        return { item };
      },
    }),
  );

  ctx.tools.register(
    defineTool({
      name: 'todo_clear',
      description: 'Remove finished (or all) todo items after asking the user to confirm.',
      parameters: z.object({}).strict(),
      async execute() {
        const answer = await ctx.userQuestions.ask({
          questions: [
            {
              id: 'scope',
              question: 'Which todo items should be removed?',
              options: [{ label: 'finished' }, { label: 'all' }, { label: 'none' }],
            },
          ],
        });
        const scope = answer.answers[0]?.selected[0] ?? 'none';
        const before = await load();
        if (scope === 'none') return { removed: 0, scope };
        const kept = scope === 'all' ? [] : before.items.filter((item) => !item.done);
        await save({ version: 1, items: kept });
        const context = await ctx.clat.context();
        return { removed: before.items.length - kept.length, scope, project: context.project.root };
      },
    }),
  );
}
