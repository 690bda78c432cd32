/**
 * What a project's config issues cost, in one phrase for `clat mcp` and `/mcp`: how many entries
 * were skipped and which files to fix. Without it an empty mount read "no MCP servers configured;
 * add one", though entries were configured and `clat mcp add` refuses an unreadable mcp.json.
 * @module
 */
import type { ConfigIssue } from '@clat/kernel';

/** Issue paths that concern a whole file (mcp.json not JSON, not an object, bad wrapper). */
const WHOLE_FILE = new Set(['(root)', 'mcpServers']);

/**
 * A message that ends in its own remedy: the command to run, or the environment variable to set
 * (an installed server's `${env.NAME}`); editing its file would not help.
 */
const REMEDY = /\brun "clat [^"]+"$|; set it where CLAT starts$/;

/** The entry an issue path names: its first segment (`docs.url` → `docs`). */
function entryOf(path: string): string {
  return /^[^.[]*/.exec(path)?.[0] ?? path;
}

/**
 * `2 entries skipped; fix /h/mcp.json` or `/h/mcp.json could not be read; fix it`; undefined
 * when there are no issues.
 */
export function skippedEntries(issues: readonly ConfigIssue[]): string | undefined {
  if (issues.length === 0) return undefined;
  const unreadable = new Set<string>();
  const entries = new Set<string>();
  const files = new Set<string>();
  for (const issue of issues) {
    // An issue that names its own remedy (`run "clat plugin repair x"` for a damaged package, an
    // unset environment variable) is not fixed by editing its file: registry.json is fine then.
    if (!REMEDY.test(issue.message)) files.add(issue.file);
    if (WHOLE_FILE.has(issue.path)) unreadable.add(issue.file);
    else entries.add(JSON.stringify([issue.file, entryOf(issue.path)]));
  }
  const parts = [...unreadable].map((file) => `${file} could not be read`);
  if (entries.size > 0)
    parts.push(`${entries.size} entr${entries.size === 1 ? 'y' : 'ies'} skipped`);
  const fix = files.size > 0 ? `fix ${[...files].join(' and ')}` : 'each says what to do';
  return `${parts.join(', ')}; ${fix}`;
}
