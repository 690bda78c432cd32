/**
 * `@<server>:<uri>` mentions in a typed line: a word that starts with `@`, a configured server
 * name, a colon and a URI (sentence punctuation after it is dropped). Words naming no server are
 * ordinary text (e-mail addresses, handles).
 * @module
 */

export interface ResourceMention {
  server: string;
  uri: string;
  /** The word as typed, `@server:uri`. */
  text: string;
}

const TRAILING_PUNCTUATION = /[.,;:!?)\]]+$/;

/** Mentions in order of appearance, each once; the longest matching server name wins. */
export function findMentions(line: string, servers: readonly string[]): ResourceMention[] {
  const byLength = [...servers].sort((a, b) => b.length - a.length);
  const found: ResourceMention[] = [];
  const seen = new Set<string>();
  for (const raw of line.split(/\s+/)) {
    // Sentence punctuation after a mention is not part of the URI.
    const word = raw.replace(TRAILING_PUNCTUATION, '');
    if (!word.startsWith('@')) continue;
    const server = byLength.find((name) => word.startsWith(`@${name}:`));
    if (server === undefined) continue;
    const uri = word.slice(server.length + 2);
    if (uri === '' || seen.has(word)) continue;
    seen.add(word);
    found.push({ server, uri, text: word });
  }
  return found;
}
