/**
 * Tab completion in the interactive session: the session's commands and the server prompts'
 * slash commands, then the tool, server or mode a command takes, as shells and other agents'
 * prompts complete. Names come from what the session already knows (the registry, the mount, the
 * prompt listing); the one wait is a first prompt listing, bounded, when `/mcp__` is completed.
 * @module
 */

/** What completion draws its names from. */
export interface CompletionSources {
  /** The session's own commands, with their slash. */
  readonly commands: readonly string[];
  /** The servers' prompts as slash commands (`/mcp__docs__review`), listed at most once here. */
  promptCommands(): Promise<readonly string[]>;
  /** Registered tool names. */
  tools(): readonly string[];
  /** Configured server names. */
  servers(): readonly string[];
  readonly modes: readonly string[];
}

/** The names among `names` that start with `typed`, sorted; readline lists them or fills in one. */
function matching(names: Iterable<string>, typed: string): string[] {
  const hits = new Set<string>();
  for (const name of names) if (name.startsWith(typed)) hits.add(name);
  return [...hits].sort();
}

/**
 * The completions of `line` (the text before the cursor) and the part of it they replace, as
 * readline's completer returns them; no completion for a prompt to the model or a second word.
 */
export async function completeSessionLine(
  line: string,
  sources: CompletionSources,
): Promise<[string[], string]> {
  if (!line.startsWith('/')) return [[], line];
  const space = line.indexOf(' ');
  if (space === -1) {
    const own = matching(sources.commands, line);
    const prompts = line.startsWith('/m') ? matching(await sources.promptCommands(), line) : [];
    return [[...own, ...prompts], line];
  }
  const command = line.slice(0, space);
  const rest = line.slice(space + 1);
  // Only the command's first argument: later words are a tool's arguments or flags.
  if (/\s/.test(rest)) return [[], rest];
  switch (command) {
    case '/call':
      return [matching(sources.tools(), rest), rest];
    case '/tools':
      return [matching([...sources.tools(), ...sources.servers()], rest), rest];
    case '/login':
    case '/resources':
      return [matching(sources.servers(), rest), rest];
    case '/mode':
      return [matching(sources.modes, rest), rest];
    default:
      return [[], rest];
  }
}

/** readline's (asynchronous) completer over {@link completeSessionLine}; a failure completes nothing. */
export function sessionCompleter(
  sources: CompletionSources,
): (line: string, done: (error: null, result: [string[], string]) => void) => void {
  return (line, done) => {
    void completeSessionLine(line, sources).then(
      (result) => done(null, result),
      () => done(null, [[], line]),
    );
  };
}
