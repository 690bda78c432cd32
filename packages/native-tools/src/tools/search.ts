import type { Dirent } from 'node:fs';
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cancelledError } from '@clat/kernel';
import {
  invalidArguments,
  onlyKnown,
  optionalBoolean,
  optionalEnum,
  optionalInteger,
  optionalString,
  optionalStringList,
  requiredString,
} from '../args.js';
import { globToRegExp, IgnoreRules, matchesAny } from '../glob.js';
import { NATIVE_LIMITS, SKIPPED_DIRECTORIES } from '../limits.js';
import { literalMatcher, workerMatcher } from '../line-matcher.js';
import { defineNativeTool } from '../native-tool.js';
import { isPluginCall, type ToolEnv } from '../options.js';
import { ResultBudget } from '../result-budget.js';
import { looksBinary } from './read-file.js';

export interface SearchMatch {
  path: string;
  line: number;
  text: string;
}

export interface SearchOutput {
  matches: SearchMatch[];
  /** Pass back as `cursor` for the next page; null when done. */
  next_cursor: string | null;
  /** Files skipped as binary or over the size cap. */
  skipped_files: number;
}

const KNOWN = [
  'query',
  'path',
  'mode',
  'case_sensitive',
  'include_globs',
  'exclude_globs',
  'extensions',
  'include_hidden',
  'respect_gitignore',
  'max_results',
  'cursor',
] as const;

function encodeCursor(skip: number, query: string): string {
  return Buffer.from(JSON.stringify({ skip, query })).toString('base64url');
}

function decodeCursor(cursor: string, query: string): number {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    const { skip, query: forQuery } = parsed as { skip?: unknown; query?: unknown };
    if (typeof skip === 'number' && Number.isInteger(skip) && skip >= 0 && forQuery === query) {
      return skip;
    }
  } catch {
    // fall through to the error below
  }
  throw invalidArguments('search', '"cursor" is not a cursor returned by this search');
}

function compileQuery(query: string, mode: 'literal' | 'regex', caseSensitive: boolean): RegExp {
  const flags = caseSensitive ? 'u' : 'iu';
  if (mode === 'literal') return new RegExp(query.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&'), flags);
  try {
    return new RegExp(query, flags);
  } catch (error) {
    throw invalidArguments(
      'search',
      `"query" is not a valid regular expression: ${(error as Error).message}`,
    );
  }
}

function joinDisplay(base: string, name: string): string {
  return base === '.' ? name : `${base}/${name}`;
}

export function searchTool(env: ToolEnv) {
  const list = {
    type: 'array',
    items: { type: 'string' },
    maxItems: NATIVE_LIMITS.searchMaxFilters,
  };
  return defineNativeTool({
    name: 'search',
    description:
      'Search text files under a path for a literal string or regular expression, line by line. Skips binary files, hidden files (unless include_hidden), .gitignore-d paths (unless respect_gitignore is false) and VCS/dependency/build directories. Page with next_cursor.',
    effect: 'read',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1 },
        path: { type: 'string', default: '.', description: 'Directory or file to search' },
        mode: { type: 'string', enum: ['literal', 'regex'], default: 'literal' },
        case_sensitive: { type: 'boolean', default: false },
        include_globs: { ...list, description: 'Only files matching one of these globs' },
        exclude_globs: { ...list, description: 'Skip files and directories matching these globs' },
        extensions: { ...list, description: 'Only files with these extensions (e.g. "ts")' },
        include_hidden: { type: 'boolean', default: false },
        respect_gitignore: { type: 'boolean', default: true },
        max_results: {
          type: 'integer',
          minimum: 1,
          maximum: NATIVE_LIMITS.searchMaxResults,
          default: NATIVE_LIMITS.searchDefaultResults,
        },
        cursor: { type: 'string' },
      },
      required: ['query'],
      additionalProperties: false,
    },
    async run(args, ctx): Promise<SearchOutput> {
      const tool = 'search';
      onlyKnown(tool, args, KNOWN);
      const query = requiredString(tool, args, 'query');
      if (query === '') throw invalidArguments(tool, '"query" must not be empty');
      const path = optionalString(tool, args, 'path') ?? '.';
      const mode = optionalEnum(tool, args, 'mode', ['literal', 'regex'] as const, 'literal');
      const caseSensitive = optionalBoolean(tool, args, 'case_sensitive', false);
      const max = NATIVE_LIMITS.searchMaxFilters;
      const include = optionalStringList(tool, args, 'include_globs', max).map(globToRegExp);
      const exclude = optionalStringList(tool, args, 'exclude_globs', max).map(globToRegExp);
      const extensions = optionalStringList(tool, args, 'extensions', max).map(
        (ext) => `.${ext.replace(/^\./, '').toLowerCase()}`,
      );
      const includeHidden = optionalBoolean(tool, args, 'include_hidden', false);
      const respectGitignore = optionalBoolean(tool, args, 'respect_gitignore', true);
      const maxResults = optionalInteger(tool, args, 'max_results', {
        min: 1,
        max: NATIVE_LIMITS.searchMaxResults,
        fallback: NATIVE_LIMITS.searchDefaultResults,
      }) as number;
      const cursor = optionalString(tool, args, 'cursor');
      const skip = cursor === undefined ? 0 : decodeCursor(cursor, query);
      const regex = compileQuery(query, mode, caseSensitive);

      const strict = isPluginCall(ctx);
      const target = await env.fence.resolveRead(path, { strict });
      // Project-relative inside the project (so .gitignore rules apply), absolute outside it.
      const base = target.display;
      const ignore = new IgnoreRules();
      if (respectGitignore) {
        const rootIgnore = await readFile(join(env.fence.root, '.gitignore'), 'utf8').catch(
          () => '',
        );
        ignore.add(rootIgnore, '');
      }
      const matches: SearchMatch[] = [];
      const budget = new ResultBudget();
      let seen = 0;
      let skippedFiles = 0;
      let more = false;

      const wanted = (display: string, name: string): boolean => {
        if (include.length > 0 && !matchesAny(display, include)) return false;
        if (extensions.length > 0 && !extensions.some((ext) => name.toLowerCase().endsWith(ext))) {
          return false;
        }
        return true;
      };

      const scanFile = async (absolute: string, display: string): Promise<boolean> => {
        const info = await lstat(absolute).catch(() => undefined);
        if (info === undefined || !info.isFile()) return true;
        if (info.size > NATIVE_LIMITS.searchMaxFileBytes || (await looksBinary(absolute))) {
          skippedFiles++;
          return true;
        }
        const text = await readFile(absolute, 'utf8');
        const needed = Math.max(0, skip - seen) + (maxResults - matches.length) + 1;
        for (const found of await matcher.match(text, needed)) {
          if (seen++ < skip) continue;
          if (matches.length === maxResults) {
            more = true;
            return false;
          }
          const line =
            found.text.length > NATIVE_LIMITS.searchLineChars
              ? `${found.text.slice(0, NATIVE_LIMITS.searchLineChars)}…`
              : found.text;
          const match = { path: display, line: found.line, text: line };
          if (!budget.take(match)) {
            more = true;
            return false;
          }
          matches.push(match);
        }
        return true;
      };

      const walk = async (absolute: string, display: string): Promise<boolean> => {
        if (ctx.signal.aborted) throw cancelledError(ctx.signal, 'search');
        let children: Dirent[];
        try {
          children = await readdir(absolute, { withFileTypes: true });
        } catch {
          return true;
        }
        if (respectGitignore && display !== '.' && children.some((c) => c.name === '.gitignore')) {
          const text = await readFile(join(absolute, '.gitignore'), 'utf8').catch(() => '');
          ignore.add(text, display);
        }
        children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        for (const child of children) {
          if (!includeHidden && child.name.startsWith('.')) continue;
          const childDisplay = joinDisplay(display, child.name);
          const childAbsolute = join(absolute, child.name);
          // Symlinks are never followed: a link could lead out of the fence or into a cycle.
          if (child.isSymbolicLink()) continue;
          if (child.isDirectory()) {
            if (SKIPPED_DIRECTORIES.has(child.name)) continue;
            if (respectGitignore && ignore.ignores(childDisplay, true)) continue;
            if (matchesAny(childDisplay, exclude)) continue;
            if (!(await walk(childAbsolute, childDisplay))) return false;
          } else if (child.isFile()) {
            if (respectGitignore && ignore.ignores(childDisplay, false)) continue;
            if (matchesAny(childDisplay, exclude)) continue;
            if (!wanted(childDisplay, child.name)) continue;
            if (!(await scanFile(childAbsolute, childDisplay))) return false;
          }
        }
        return true;
      };

      const matcher =
        mode === 'regex'
          ? workerMatcher(regex, { signal: ctx.signal, budgetMs: NATIVE_LIMITS.searchRegexFileMs })
          : literalMatcher(regex);
      try {
        const info = await lstat(target.absolute);
        if (info.isDirectory()) {
          await walk(target.absolute, base);
        } else {
          await scanFile(target.absolute, base);
        }
      } finally {
        matcher.close();
      }
      return {
        matches,
        next_cursor: more ? encodeCursor(skip + matches.length, query) : null,
        skipped_files: skippedFiles,
      };
    },
  });
}
