/**
 * A server's own command-line words, as `clat mcp add <name> -- <command> [args]` and `clat
 * plugin install npm:<name> -- [args]` take them: everything after the first `--` belongs to
 * the server, so its options never collide with CLAT's.
 * @module
 */
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { relativePathWord } from '@clat/adapter-mcp';
import { isSecretName, redactArgs, shellWord } from '@clat/kernel';

/** CLAT's words and the server's (undefined when no `--` was typed; `[]` for a bare `--`). */
export function splitServerWords(argv: readonly string[]): {
  own: string[];
  server: string[] | undefined;
} {
  const dash = argv.indexOf('--');
  return dash === -1
    ? { own: [...argv], server: undefined }
    : { own: argv.slice(0, dash), server: argv.slice(dash + 1) };
}

/**
 * A bare word that reads as a relative file path (`server.js`, `src/main.py`, `data/`): a name
 * with an extension or a slash, not an option, a package (`@scope/x`), a URL or a reference.
 */
const BARE_PATH = /^(?![.@-])(?!.*\$\{)[\w.+-]+(?:\/[\w.+@-]*)*$/;

/** An absolute path word, or an option's `=` value that is one. */
const ABSOLUTE_WORD = /^(-{1,2}[A-Za-z0-9][\w.-]*=)?(\/.*)$/s;

/** The absolute path a word names as typed, after an option's `=` when it has one. */
function typedPath(word: string): { option: string; path: string } | undefined {
  const match = ABSOLUTE_WORD.exec(word);
  return match === null ? undefined : { option: match[1] ?? '', path: match[2] as string };
}

export interface AbsolutePathOptions {
  /** Rewrites each path made absolute (a project's file writes it from `${projectRoot}`). */
  rewrite?: (absolute: string) => string;
  exists?: (path: string) => boolean;
  /**
   * How a path is written where `${` starts a reference (mcp.json: `$${`): applied to `cwd` in
   * the paths made absolute, and to a word with `${` that names an existing path as typed
   * (`/tmp/dol${HOME}lar/server.mjs`), since a directory's name is no reference.
   */
  literal?: (path: string) => string;
}

/**
 * Words that are relative paths (`.`, `./data`, `../db.sqlite`, `--db=./data.sqlite`) made
 * absolute against `cwd`, since a server runs elsewhere (the CLAT home, its package directory);
 * so is a bare file name that exists there (`node server.js`, as READMEs write it), and only
 * then, since `pkg.name` or `a/b` may be no path at all. `resolved` lists each change as
 * `word → absolute` for the output to show; `literal`, the paths whose `${` was written literally.
 */
export function absolutePathWords(
  words: readonly string[],
  cwd: string,
  options: AbsolutePathOptions = {},
): { words: string[]; resolved: string[]; literal: string[] } {
  const {
    rewrite = (absolute) => absolute,
    exists = existsSync,
    literal = (path) => path,
  } = options;
  const resolved: string[] = [];
  const literals: string[] = [];
  // The typed part of a path stays as typed (a `./${NAME}` is a reference); `cwd` is literal.
  const absolute = (path: string): string => {
    const written = resolve(literal(cwd), path);
    if (written !== resolve(cwd, path)) literals.push(resolve(cwd, path));
    return rewrite(written);
  };
  const out = words.map((word) => {
    const relative = relativePathWord(word);
    if (relative === undefined) {
      const bare =
        BARE_PATH.test(word) &&
        (word.includes('/') || /\.[A-Za-z0-9]+$/.test(word)) &&
        exists(resolve(cwd, word));
      if (!bare) {
        const typed = typedPath(word);
        if (typed === undefined || !typed.path.includes('${') || !exists(typed.path)) return word;
        if (literal(typed.path) !== typed.path) literals.push(typed.path);
        return `${typed.option}${literal(typed.path)}`;
      }
      const made = absolute(word);
      resolved.push(`${word} → ${made}`);
      return made;
    }
    const made = `${relative.option}${absolute(relative.path)}`;
    resolved.push(`${word} → ${made}`);
    return made;
  });
  return { words: out, resolved, literal: literals };
}

/**
 * The command line with a server's option moved after `--`, for the error of an option CLAT does
 * not know (`clat plugin install npm:@playwright/mcp --headless`): the unknown word and the
 * values after it (words up to the next option or `npm:` source) move; undefined when `unknown` is not a word.
 */
export function withServerWordsMoved(
  prefix: string,
  argv: readonly string[],
  unknown: string,
): string | undefined {
  const start = argv.findIndex((word) => word === unknown || word.startsWith(`${unknown}=`));
  if (start === -1) return undefined;
  let end = start + 1;
  // A value is not an option, nor the npm source a misplaced option may stand before.
  const isValue = (word: string) => !word.startsWith('-') && !word.startsWith('npm:');
  while (end < argv.length && isValue(argv[end] as string)) end++;
  const words = [...argv.slice(0, start), ...argv.slice(end), '--', ...argv.slice(start, end)];
  return `${prefix} ${words.map((word) => shellWord(word)).join(' ')}`;
}

/**
 * What a person should know about a server's arguments, which every user of the machine can read
 * (`ps`, `/proc/<pid>/cmdline`): a word that looks like a key typed as is, and a secret-named
 * variable the start puts there (`--token '${GITHUB_TOKEN}'`); `reads(word)` lists the environment
 * variables a word reads. Both suggest `--env`, which keeps the value off the command line.
 * Names only: a value is never shown. For `clat mcp add` and `clat plugin install npm:`.
 */
export function exposedArgumentNotes(
  words: readonly string[],
  reads: (word: string) => string[],
): string[] {
  const notes: string[] = [];
  // A `${NAME}` after `--token` is no key typed as is: the second note is about it.
  const typed = redactArgs(words).some(
    (word, index) => word !== words[index] && !(words[index] as string).includes('${'),
  );
  if (typed) {
    // Typed by the person, so not refused.
    notes.push(
      "Note: a server argument looks like a key; other users of this machine can read server arguments (ps): if the server reads it from its environment, pass it with --env 'NAME=${NAME}' instead (read from the environment CLAT starts in)",
    );
  }
  const secret = [...new Set(words.flatMap((word) => reads(word)))].filter(isSecretName);
  const [first] = secret;
  if (first !== undefined) {
    const one = secret.length === 1;
    notes.push(
      `Note: the server's arguments read ${secret.join(', ')} from the environment CLAT starts in, so each start puts ${one ? 'its value' : 'their values'} on the server's command line, where other users of this machine can read ${one ? 'it' : 'them'} (ps); if the server reads ${one ? 'it' : 'them'} from its environment, pass ${one ? 'it' : 'each'} with --env '${first}=\${${first}}' instead`,
    );
  }
  return notes;
}

/**
 * The note for a server given directories (`server-filesystem ./data`) while CLAT offers it the
 * project root as an MCP root: a server that narrows itself to its roots drops them. `keep` is
 * what keeps them (`--no-roots`, `clat plugin roots <id> off`). Undefined when no argument is
 * an existing directory.
 */
export async function rootsNote(
  words: readonly string[],
  keep: string,
): Promise<string | undefined> {
  const dirs: string[] = [];
  for (const word of words) {
    if (isAbsolute(word) && (await stat(word).catch(() => undefined))?.isDirectory()) {
      dirs.push(word);
    }
  }
  if (dirs.length === 0) return undefined;
  return `Note: CLAT offers the server the project root as an MCP root; a server that narrows itself to its roots (server-filesystem does) then uses it instead of ${dirs.join(', ')}; ${keep} keeps ${dirs.length === 1 ? 'that directory' : 'those directories'}`;
}
