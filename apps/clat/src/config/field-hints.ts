/**
 * What an unknown field of a config entry was likely meant to be: another client's name for a
 * CLAT field (Gemini CLI's `httpUrl`), a longer spelling (`environment`), or a typo of a known
 * field (`comand`). Only for issues whose reader said which fields it knows (mcp.json entries).
 * @module
 */
import type { ConfigIssue } from '@clat/kernel';
import { closestName } from '../ui/did-you-mean.js';

/** Fields other clients, or their READMEs, name otherwise: the CLAT field, and whose name it is. */
const OTHER_NAMES: Readonly<Record<string, { field: string; whose: string }>> = {
  httpUrl: { field: 'url', whose: "Gemini CLI's name" },
  serverUrl: { field: 'url', whose: "Windsurf's name" },
  http_headers: { field: 'headers', whose: "Codex's name" },
  environment: { field: 'env', whose: 'a longer name' },
  arguments: { field: 'args', whose: 'a longer name' },
  transport: { field: 'type', whose: 'a name some clients use' },
};

/**
 * One hint per unknown field that has one; empty when none does. A field the issue's message
 * does not name itself is named in its hint (`entry needs either "command" … ("comand": did you
 * mean "command"?)`).
 */
function hints(unknown: readonly string[], known: readonly string[], message: string): string[] {
  const out: string[] = [];
  for (const key of unknown) {
    const other = OTHER_NAMES[key];
    if (other !== undefined && known.includes(other.field)) {
      out.push(
        `${JSON.stringify(key)} is ${other.whose} for ${JSON.stringify(other.field)} in CLAT`,
      );
      continue;
    }
    const meant = closestName(key, known);
    if (meant === undefined) continue;
    out.push(
      unknown.length === 1 && message.includes(JSON.stringify(key))
        ? `did you mean ${JSON.stringify(meant)}?`
        : `${JSON.stringify(key)}: did you mean ${JSON.stringify(meant)}?`,
    );
  }
  return out;
}

/** ` (did you mean "command"?)` and the like for `issue`'s unknown fields, or ''. */
export function fieldHints(issue: ConfigIssue): string {
  if (issue.unknownKeys === undefined || issue.knownKeys === undefined) return '';
  const found = hints(issue.unknownKeys, issue.knownKeys, issue.message);
  return found.length === 0 ? '' : ` (${found.join('; ')})`;
}
