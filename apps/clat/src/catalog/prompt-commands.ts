/**
 * Session slash commands of server prompts: `/mcp__<server>__<prompt>`. The server part is the
 * server name normalised as in tool names; a prompt name must already be command-safe, otherwise
 * the prompt is skipped with a reason the person can read in `/prompts` and `clat prompts`.
 * @module
 */
import { type CatalogPrompt, LIMITS, normalizeNameSegment } from '@clat/kernel';

/** Characters a prompt name may use in a command (no spaces, quotes, slashes, controls). */
const COMMAND_SAFE = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** One server's prompts, or why they could not be listed. */
export interface ServerPrompts {
  server: string;
  prompts?: readonly CatalogPrompt[];
  error?: string;
}

export interface PromptCommand {
  /** Without the leading slash: `mcp__everything__args-prompt`. */
  command: string;
  server: string;
  prompt: CatalogPrompt;
}

export interface SkippedPrompt {
  server: string;
  prompt: string;
  reason: string;
}

export interface PromptCommandTable {
  commands: PromptCommand[];
  skipped: SkippedPrompt[];
  /** Servers whose prompt list failed, with the (unsanitised) reason. */
  failed: { server: string; error: string }[];
}

/** The command of one prompt, or the reason it has none. */
export function promptCommandName(
  server: string,
  prompt: string,
): { command: string } | { reason: string } {
  const segment = normalizeNameSegment(server);
  if (segment === '') {
    return { reason: `server name ${JSON.stringify(server)} has no ASCII letters or digits` };
  }
  if (!COMMAND_SAFE.test(prompt)) {
    return {
      reason:
        'the prompt name has characters a slash command cannot carry (allowed: A-Z a-z 0-9 _ . -)',
    };
  }
  const command = `mcp__${segment}__${prompt}`;
  if (command.length > LIMITS.toolNameChars) {
    return {
      reason: `the command would be ${command.length} characters, over ${LIMITS.toolNameChars}`,
    };
  }
  return { command };
}

/** Every usable command in server then prompt order; the first of two equal commands wins. */
export function buildPromptCommands(lists: readonly ServerPrompts[]): PromptCommandTable {
  const table: PromptCommandTable = { commands: [], skipped: [], failed: [] };
  const taken = new Map<string, PromptCommand>();
  for (const list of lists) {
    if (list.error !== undefined) table.failed.push({ server: list.server, error: list.error });
    for (const prompt of list.prompts ?? []) {
      const named = promptCommandName(list.server, prompt.name);
      if ('reason' in named) {
        table.skipped.push({ server: list.server, prompt: prompt.name, reason: named.reason });
        continue;
      }
      const first = taken.get(named.command);
      if (first !== undefined) {
        table.skipped.push({
          server: list.server,
          prompt: prompt.name,
          reason: `/${named.command} is already the command of prompt ${JSON.stringify(first.prompt.name)} of server ${JSON.stringify(first.server)}`,
        });
        continue;
      }
      const entry = { command: named.command, server: list.server, prompt };
      taken.set(named.command, entry);
      table.commands.push(entry);
    }
  }
  return table;
}
