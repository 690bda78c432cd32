/**
 * Other clients' command words, as their READMEs print them (`claude mcp serve`, `gemini
 * extensions install`), answered with what CLAT does instead: a newcomer typing one gets the
 * CLAT command, not only "unknown subcommand". Each answer names a command that works as said.
 * @module
 */

/** Keyed by where the word was typed (`clat mcp`) and the word. */
const FOREIGN_COMMANDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  clat: {
    extensions:
      "Gemini CLI's extensions are CLAT's plugins: clat plugin install <source> (npm:<name>, a directory, a .clatpkg, an MCPB bundle or a .wasm component), clat plugin list",
  },
  'clat mcp': {
    'add-from-claude-desktop':
      "that is Claude Code's command; CLAT copies Claude Desktop's servers with: clat mcp import --from claude-desktop (--dry-run shows what it would add)",
    serve:
      "Claude Code's mcp serve offers its own tools over MCP; CLAT serves a trusted project's tools (its servers, plugins and native tools) as one MCP server with clat-gateway --project <dir> (npm package @clat/gateway)",
    'reset-project-choices':
      "that is Claude Code's command; CLAT starts a project's servers once the project is trusted (clat trust --remove takes that back) and keeps the tools you always allow in it (clat approvals reset forgets them)",
  },
  'clat plugin': {
    marketplace:
      'CLAT has no plugin marketplaces; a plugin installs from its source: clat plugin install npm:<name>, a directory, a .clatpkg, an MCPB bundle or a .wasm component',
    search:
      'CLAT has no plugin index; MCP servers published to npm install with clat plugin install npm:<name> (npm search mcp <words> finds them)',
  },
};

/** What CLAT does instead of another client's `word` typed after `where`; undefined if none. */
export function foreignCommand(
  where: 'clat' | 'clat mcp' | 'clat plugin',
  word: string,
): string | undefined {
  const answers = FOREIGN_COMMANDS[where] as Readonly<Record<string, string>>;
  return Object.hasOwn(answers, word) ? answers[word] : undefined;
}
