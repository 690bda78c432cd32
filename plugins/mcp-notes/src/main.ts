/** Entry point: serve the notes server over stdio for both MCP eras. @module */
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { resolveDataDir } from './data-dir.js';
import { NotesStore } from './notes-store.js';
import { createNotesServer } from './server.js';

let dir: string;
try {
  dir = resolveDataDir(process.env);
} catch (error) {
  process.stderr.write(`mcp-notes: ${(error as Error).message}\n`);
  process.exit(2);
}
const store = new NotesStore(dir);
process.stderr.write(`mcp-notes: notes in ${store.file}\n`);

serveStdio(() => createNotesServer(store), {
  onerror: (error) => process.stderr.write(`mcp-notes: ${error.message}\n`),
});
