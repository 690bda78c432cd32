import type { Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { cancelledError } from '@clat/kernel';
import { onlyKnown, optionalInteger, optionalString } from '../args.js';
import { NATIVE_LIMITS, SKIPPED_DIRECTORIES } from '../limits.js';
import { defineNativeTool } from '../native-tool.js';
import { isPluginCall, type ToolEnv } from '../options.js';
import { ResultBudget } from '../result-budget.js';

export type EntryKind = 'file' | 'directory' | 'symlink' | 'other';

export interface ListFilesOutput {
  path: string;
  entries: { path: string; kind: EntryKind }[];
  truncated: boolean;
}

function kindOf(entry: {
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}): EntryKind {
  if (entry.isSymbolicLink()) return 'symlink';
  if (entry.isDirectory()) return 'directory';
  if (entry.isFile()) return 'file';
  return 'other';
}

function joinDisplay(base: string, name: string): string {
  if (base === '.') return name;
  return base.endsWith('/') ? `${base}${name}` : `${base}/${name}`;
}

export function listFilesTool(env: ToolEnv) {
  return defineNativeTool({
    name: 'list_files',
    description:
      'List files and directories breadth-first under a path (default: the project root). Skips VCS, dependency and build directories; never follows symlinks. max_depth 0 describes the path itself.',
    effect: 'read',
    inputSchema: {
      type: 'object',
      properties: {
        path: {
          type: 'string',
          description: 'Directory or file; relative to the project root',
          default: '.',
        },
        max_depth: {
          type: 'integer',
          minimum: 0,
          maximum: NATIVE_LIMITS.listMaxDepth,
          default: NATIVE_LIMITS.listDefaultDepth,
        },
        max_entries: {
          type: 'integer',
          minimum: 1,
          maximum: NATIVE_LIMITS.listMaxEntries,
          default: NATIVE_LIMITS.listDefaultEntries,
        },
      },
      additionalProperties: false,
    },
    async run(args, ctx): Promise<ListFilesOutput> {
      onlyKnown('list_files', args, ['path', 'max_depth', 'max_entries']);
      const path = optionalString('list_files', args, 'path') ?? '.';
      const maxDepth = optionalInteger('list_files', args, 'max_depth', {
        min: 0,
        max: NATIVE_LIMITS.listMaxDepth,
        fallback: NATIVE_LIMITS.listDefaultDepth,
      }) as number;
      const maxEntries = optionalInteger('list_files', args, 'max_entries', {
        min: 1,
        max: NATIVE_LIMITS.listMaxEntries,
        fallback: NATIVE_LIMITS.listDefaultEntries,
      }) as number;
      const target = await env.fence.resolveRead(path, { strict: isPluginCall(ctx) });
      const base = isPluginCall(ctx) || !path.startsWith('/') ? target.display : target.absolute;
      const info = await lstat(target.absolute);
      if (!info.isDirectory() || maxDepth === 0) {
        return { path: base, entries: [{ path: base, kind: kindOf(info) }], truncated: false };
      }
      const entries: ListFilesOutput['entries'] = [];
      const budget = new ResultBudget();
      let queue: { absolute: string; display: string }[] = [
        { absolute: target.absolute, display: base },
      ];
      for (let depth = 1; depth <= maxDepth && queue.length > 0; depth++) {
        const next: typeof queue = [];
        for (const dir of queue) {
          if (ctx.signal.aborted) throw cancelledError(ctx.signal, 'list_files');
          let children: Dirent[];
          try {
            children = await readdir(dir.absolute, { withFileTypes: true });
          } catch {
            continue; // unreadable directory: listed, not descended
          }
          children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
          for (const child of children) {
            const kind = kindOf(child);
            if (kind === 'directory' && SKIPPED_DIRECTORIES.has(child.name)) continue;
            if (entries.length === maxEntries) return { path: base, entries, truncated: true };
            const display = joinDisplay(dir.display, child.name);
            const entry = { path: display, kind };
            if (!budget.take(entry)) return { path: base, entries, truncated: true };
            entries.push(entry);
            if (kind === 'directory')
              next.push({ absolute: join(dir.absolute, child.name), display });
          }
        }
        queue = next;
      }
      return { path: base, entries, truncated: false };
    },
  });
}
