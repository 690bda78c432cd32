/**
 * A small glob matcher for search filters and .gitignore lines: `*` (no `/`), `**` (any depth),
 * `?`, and `[...]` classes. Patterns without `/` match the base name at any depth.
 * @module
 */

function escapeRegex(char: string): string {
  return /[\\^$.*+?()[\]{}|]/.test(char) ? `\\${char}` : char;
}

/** Compiles a glob to a RegExp over `/`-separated project-relative paths. */
export function globToRegExp(glob: string): RegExp {
  let pattern = glob.replace(/\\/g, '/');
  const anchored = pattern.startsWith('/') || pattern.slice(0, -1).includes('/');
  if (pattern.startsWith('/')) pattern = pattern.slice(1);
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] as string;
    if (char === '*') {
      if (pattern[i + 1] === '*') {
        const slashAfter = pattern[i + 2] === '/';
        source += slashAfter ? '(?:.*/)?' : '.*';
        i += slashAfter ? 2 : 1;
      } else {
        source += '[^/]*';
      }
    } else if (char === '?') {
      source += '[^/]';
    } else if (char === '[') {
      const close = pattern.indexOf(']', i + 1);
      if (close === -1) {
        source += '\\[';
      } else {
        const body = pattern
          .slice(i + 1, close)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\');
        source += `[${body}]`;
        i = close;
      }
    } else {
      source += escapeRegex(char);
    }
  }
  if (source.endsWith('/')) source = `${source.slice(0, -1)}(?:/.*)?`;
  return new RegExp(anchored ? `^${source}$` : `(?:^|/)${source}$`);
}

/** True when `path` (project-relative, `/`-separated) matches any of the compiled globs. */
export function matchesAny(path: string, globs: readonly RegExp[]): boolean {
  return globs.some((glob) => glob.test(path));
}

/** One parsed .gitignore file: later lines win, `!` re-includes. */
export class IgnoreRules {
  readonly #rules: { regex: RegExp; negate: boolean; dirOnly: boolean }[] = [];

  /** `base` is the project-relative directory holding the .gitignore ('' for the root). */
  add(text: string, base: string): void {
    for (const raw of text.split(/\r?\n/)) {
      let line = raw.trimEnd();
      if (line === '' || line.startsWith('#')) continue;
      const negate = line.startsWith('!');
      if (negate) line = line.slice(1);
      const dirOnly = line.endsWith('/');
      if (dirOnly) line = line.slice(0, -1);
      if (line === '') continue;
      const anchored = line.startsWith('/') || line.includes('/');
      const relativeGlob = anchored ? line.replace(/^\//, '') : line;
      const prefixed =
        base === ''
          ? anchored
            ? `/${relativeGlob}`
            : relativeGlob
          : `/${base}/${anchored ? relativeGlob : `**/${relativeGlob}`}`;
      this.#rules.push({ regex: globToRegExp(prefixed), negate, dirOnly });
    }
  }

  ignores(path: string, isDirectory: boolean): boolean {
    let ignored = false;
    for (const rule of this.#rules) {
      if (rule.dirOnly && !isDirectory) continue;
      if (rule.regex.test(path)) ignored = !rule.negate;
    }
    return ignored;
  }
}
