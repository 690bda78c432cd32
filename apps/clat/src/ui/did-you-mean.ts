/**
 * "did you mean" for a name that matched nothing (a tool, a server, a command): the one closest
 * known name, when it is close enough to be a typo rather than another word.
 * Edit distance comes from fastest-levenshtein (see the README's libraries).
 * @module
 */
import { qualifyToolName } from '@clat/kernel';
import { distance } from 'fastest-levenshtein';

/** Whether `a` becomes `b` by swapping two neighbouring characters (`lsit` → `list`). */
function oneSwap(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let at = 0;
  while (at < a.length && a[at] === b[at]) at++;
  return (
    at + 1 < a.length &&
    a[at] === b[at + 1] &&
    a[at + 1] === b[at] &&
    a.slice(at + 2) === b.slice(at + 2)
  );
}

/**
 * The candidate closest to `name` when it is a likely typo, and the only one that close (two
 * equally close names would be a guess). Close means 1 edit for names of up to 4 characters, else
 * 2 or a quarter of the length (`mcp_notes_add_notes` → `mcp_notes_add_note`); swapping two
 * neighbouring characters counts as one edit. Case is ignored.
 */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  const wanted = name.toLowerCase();
  const most = wanted.length <= 4 ? 1 : Math.max(2, Math.floor(wanted.length / 4));
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  let tied = false;
  for (const candidate of new Set(candidates)) {
    if (candidate === name) continue;
    const lower = candidate.toLowerCase();
    const edits = oneSwap(wanted, lower) ? 1 : distance(wanted, lower);
    if (edits > most) continue;
    if (edits < bestDistance) {
      best = candidate;
      bestDistance = edits;
      tied = false;
    } else if (edits === bestDistance) tied = true;
  }
  return tied ? undefined : best;
}

/** ` (did you mean "x"?)`, or the empty string when no name is close enough. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const closest = closestName(name, candidates);
  return closest === undefined ? '' : ` (did you mean ${JSON.stringify(closest)}?)`;
}

/**
 * CLAT's name for a tool written as Claude Code names MCP tools, `mcp__<server>__<tool>`
 * (`mcp__fs__read_text_file` → `mcp_fs_read_text_file`); undefined for any other form.
 */
export function claudeToolName(name: string): string | undefined {
  const match = /^mcp__(.+?)__(.+)$/.exec(name);
  if (match === null) return undefined;
  try {
    return qualifyToolName('mcp', match[1] as string, match[2] as string);
  } catch {
    return undefined;
  }
}

/**
 * "did you mean" for a tool name: CLAT's name of Claude Code's `mcp__<server>__<tool>`, the one
 * server tool whose own name this is (`read_text_file` → `mcp_fs_read_text_file`, as Gemini CLI
 * names tools), else the closest name.
 */
export function didYouMeanTool(name: string, names: readonly string[]): string {
  const claude = claudeToolName(name);
  if (claude !== undefined && names.includes(claude)) {
    return ` (did you mean ${JSON.stringify(claude)}? CLAT names a server's tools mcp_<server>_<tool>)`;
  }
  const own = names.filter(
    (candidate) => /^(?:mcp|wasm)_/.test(candidate) && candidate.endsWith(`_${name}`),
  );
  if (own.length === 1) return ` (did you mean ${JSON.stringify(own[0])}?)`;
  return didYouMean(name, names);
}
