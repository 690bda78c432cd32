/**
 * `@<server>:<uri>` mentions in a typed line: a word that starts with `@`, a configured server
 * name, a colon and a URI. Words naming no server are ordinary text (e-mail addresses, handles).
 * @module
 */

export interface ResourceMention {
  server: string;
  uri: string;
  /** The word as typed, `@server:uri`. */
  text: string;
}

/** Mentions in order of appearance, each once; the longest matching server name wins. */
export function findMentions(line: string, servers: readonly string[]): ResourceMention[] {
  const byLength = [...servers].sort((a, b) => b.length - a.length);
  const found: ResourceMention[] = [];
  const seen = new Set<string>();
  for (const word of line.split(/\s+/)) {
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
