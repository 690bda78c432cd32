/**
 * The notes MCP server. One factory serves both protocol eras: `serveStdio` pins a fresh instance per
 * connection after the opening exchange (modern `server/discover` or legacy `initialize`).
 * @module
 */
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { NotesStore } from './notes-store.js';

export const SERVER_NAME = 'mcp-notes';
export const SERVER_VERSION = '0.1.0';

const MAX_TITLE = 200;
const MAX_BODY = 64 * 1024;
const MAX_TAGS = 16;

const tagSchema = z.string().min(1).max(64);
const summarySchema = z.object({
  id: z.string(),
  title: z.string(),
  tags: z.array(z.string()),
  createdAt: z.string(),
});

function json(value: unknown): { type: 'text'; text: string } {
  return { type: 'text', text: JSON.stringify(value, null, 2) };
}

/** Builds one server instance over `store`. The annotations are what CLAT maps to effects. */
export function createNotesServer(store: NotesStore): McpServer {
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      capabilities: { tools: {} },
      instructions:
        'Keeps short notes in a local file. Use search_notes before add_note to avoid duplicates.',
    },
  );

  server.registerTool(
    'add_note',
    {
      title: 'Add note',
      description:
        'Store a new note with a title, a body and optional tags. Returns the new note id.',
      inputSchema: z.object({
        title: z.string().min(1).max(MAX_TITLE),
        body: z.string().max(MAX_BODY),
        tags: z.array(tagSchema).max(MAX_TAGS).optional(),
      }),
      outputSchema: z.object({ id: z.string(), createdAt: z.string() }),
      // Writes local state, never removes any: Write effect in CLAT.
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    async ({ title, body, tags }) => {
      const note = await store.add(tags === undefined ? { title, body } : { title, body, tags });
      const out = { id: note.id, createdAt: note.createdAt };
      return { content: [json(out)], structuredContent: out };
    },
  );

  server.registerTool(
    'list_notes',
    {
      title: 'List notes',
      description: 'List stored notes, newest first, optionally only those with a tag.',
      inputSchema: z.object({
        tag: tagSchema.optional(),
        limit: z.number().int().min(1).max(1000).optional(),
      }),
      outputSchema: z.object({ notes: z.array(summarySchema) }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ tag, limit }) => {
      const filter: { tag?: string; limit?: number } = {};
      if (tag !== undefined) filter.tag = tag;
      if (limit !== undefined) filter.limit = limit;
      const out = { notes: await store.list(filter) };
      return { content: [json(out)], structuredContent: out };
    },
  );

  server.registerTool(
    'get_note',
    {
      title: 'Get note',
      description: 'Read one note in full by id.',
      inputSchema: z.object({ id: z.string().min(1) }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ id }) => {
      const note = await store.get(id);
      if (note === undefined) {
        return { content: [{ type: 'text', text: `No note with id ${id}` }], isError: true };
      }
      return { content: [json(note)] };
    },
  );

  server.registerTool(
    'search_notes',
    {
      title: 'Search notes',
      description: 'Case-insensitive search over note titles, bodies and tags.',
      inputSchema: z.object({ query: z.string().min(1).max(1000) }),
      outputSchema: z.object({
        hits: z.array(summarySchema.extend({ snippet: z.string() })),
      }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ query }) => {
      const out = { hits: await store.search(query) };
      return { content: [json(out)], structuredContent: out };
    },
  );

  server.registerTool(
    'delete_note',
    {
      title: 'Delete note',
      description: 'Permanently delete a note by id.',
      inputSchema: z.object({ id: z.string().min(1) }),
      outputSchema: z.object({ deleted: z.boolean() }),
      // Removes data: Destructive in CLAT, so every permission mode asks first.
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async ({ id }) => {
      const out = { deleted: await store.remove(id) };
      return { content: [json(out)], structuredContent: out };
    },
  );

  return server;
}
