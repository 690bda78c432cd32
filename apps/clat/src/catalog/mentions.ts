/**
 * `@<server>:<uri>` mentions in a typed line: a word that starts with `@`, a configured server
 * name, a colon and a URI (sentence punctuation after it is dropped). Words naming no server are
 * ordinary text (e-mail addresses, handles).
 * @module
 */
import { normalizeNameSegment } from '@clat/kernel';

export interface ResourceMention {
  server: string;
  uri: string;
  /** The word as typed, `@server:uri`. */
  text: string;
}

const TRAILING_PUNCTUATION = /[.,;:!?)\]]+$/;

/**
 * The name a mention uses for `server`: the name itself, or, when it holds whitespace (a mention
 * is one word), the name as tool names carry it (`team docs` → `team_docs`).
 */
export function mentionName(server: string): string {
  if (!/\s/.test(server)) return server;
  const normalized = normalizeNameSegment(server);
  return normalized === '' ? server : normalized;
}

/**
 * Mentions in order of appearance, each once; the longest matching name wins. A server is
 * matched by its name or by its name as tool names carry it (`@team_docs:` for `team docs`).
 */
export function findMentions(line: string, servers: readonly string[]): ResourceMention[] {
  const aliases: { alias: string; server: string }[] = [];
  for (const server of servers) {
    aliases.push({ alias: server, server });
    const normalized = normalizeNameSegment(server);
    if (normalized !== '' && normalized !== server) aliases.push({ alias: normalized, server });
  }
  aliases.sort((a, b) => b.alias.length - a.alias.length);
  const found: ResourceMention[] = [];
  const seen = new Set<string>();
  for (const raw of line.split(/\s+/)) {
    // Sentence punctuation after a mention is not part of the URI.
    const word = raw.replace(TRAILING_PUNCTUATION, '');
    if (!word.startsWith('@')) continue;
    const match = aliases.find(({ alias }) => word.startsWith(`@${alias}:`));
    if (match === undefined) continue;
    const uri = word.slice(match.alias.length + 2);
    if (uri === '' || seen.has(word)) continue;
    seen.add(word);
    found.push({ server: match.server, uri, text: word });
  }
  return found;
}
