/**
 * Server prompts and resources inside the interactive session: `/prompts`, `/resources`, the
 * `/mcp__<server>__<prompt>` slash commands and `@<server>:<uri>` mentions. Everything here runs
 * because the person typed it; the results become the next model turn.
 * @module
 */
import { LIMITS, sanitizeTerminalLine as line, type PluginMount } from '@clat/kernel';
import type { ChatMessage } from '@clat/provider-openai';
import { CliError, CliErrorCode } from '../errors.js';
import {
  attachmentText,
  formatPromptTable,
  formatRenderedPrompt,
  formatResources,
  promptChatMessages,
} from './catalog-text.js';
import { catalogOf, loadPrompts, loadResources, serversOffering } from './load-catalog.js';
import { findMentions } from './mentions.js';
import { bindPromptArguments, splitWords } from './prompt-arguments.js';
import { buildPromptCommands, type PromptCommandTable } from './prompt-commands.js';

/** Where a session sends a person to see why a server is missing: its own `/mcp`. */
const STATUS_COMMAND = '/mcp';

/** The prefix every prompt slash command starts with (after the slash). */
export const PROMPT_COMMAND_PREFIX = 'mcp__';

export interface RenderedCommand {
  /** What the terminal shows (sanitised). */
  shown: string;
  /** The model turn. */
  messages: ChatMessage[];
}

export interface Attachments {
  /** One labelled block per mention, for the model. */
  blocks: string[];
  /** One sanitised line per mention, for the terminal. */
  notes: string[];
}

export class SessionCatalog {
  readonly #mount: PluginMount;
  /**
   * The newest complete listing. A command it lacks triggers one fresh listing (a server may have
   * changed its prompts); `/prompts` always lists afresh.
   */
  #table: PromptCommandTable | undefined;

  constructor(mount: PluginMount) {
    this.#mount = mount;
  }

  /** Waits (bounded) for servers still connecting, so a listing is complete. */
  async #settled(): Promise<void> {
    if (this.#mount.summary().connecting > 0) {
      await this.#mount.waitSettled(LIMITS.initialSurfaceWaitMs);
    }
  }

  async #commands(signal?: AbortSignal, fresh = false): Promise<PromptCommandTable> {
    if (this.#table !== undefined && !fresh) return this.#table;
    await this.#settled();
    const lists = await loadPrompts(this.#mount, serversOffering(this.#mount, 'prompts'), signal);
    const table = buildPromptCommands(lists);
    if (this.#mount.summary().connecting === 0 && table.failed.length === 0) this.#table = table;
    return table;
  }

  /**
   * The prompts' slash commands (with their slash) for Tab completion: the newest listing, or
   * one listing once no server is still connecting (none while they connect: completion must
   * not wait for a slow server); a failed listing completes nothing.
   */
  async completionCommands(): Promise<string[]> {
    if (this.#table === undefined && this.#mount.summary().connecting > 0) return [];
    const table = await this.#commands().catch(() => undefined);
    return table === undefined ? [] : table.commands.map((command) => `/${command.command}`);
  }

  /** `/prompts`. */
  async promptsText(signal?: AbortSignal): Promise<string> {
    return formatPromptTable(await this.#commands(signal, true));
  }

  /** `/resources [server]`. */
  async resourcesText(server?: string, signal?: AbortSignal): Promise<string> {
    await this.#settled();
    if (server !== undefined) catalogOf(this.#mount, server, 'resources', STATUS_COMMAND);
    const servers = server === undefined ? serversOffering(this.#mount, 'resources') : [server];
    if (servers.length === 0) return '(no connected server offers resources)\n';
    const lists = await loadResources(this.#mount, servers, signal);
    return lists
      .map((list) =>
        list.error === undefined
          ? formatResources(list.server, list.resources, list.resourceTemplates)
          : `resources of ${line(list.server)} failed: ${line(list.error)}\n`,
      )
      .join('');
  }

  /** Renders `/<command> <args>` (command without the slash) into the next model turn. */
  async render(command: string, rest: string, signal?: AbortSignal): Promise<RenderedCommand> {
    const cached = this.#table;
    let table = cached ?? (await this.#commands(signal));
    let entry = table.commands.find((candidate) => candidate.command === command);
    if (entry === undefined && cached !== undefined) {
      table = await this.#commands(signal, true);
      entry = table.commands.find((candidate) => candidate.command === command);
    }
    if (entry === undefined) {
      const failed = table.failed.map((f) => f.server);
      throw new CliError(
        CliErrorCode.CLI_USAGE,
        `no prompt command /${command}${failed.length > 0 ? ` (listing prompts failed for ${failed.join(', ')})` : ''}; /prompts lists them`,
      );
    }
    const args = bindPromptArguments(entry.prompt, splitWords(rest));
    const rendered = await catalogOf(
      this.#mount,
      entry.server,
      'prompts',
      STATUS_COMMAND,
    ).renderPrompt(entry.prompt.name, args, signal);
    const count = rendered.messages.length;
    return {
      shown: `prompt /${line(command)} (${count} message${count === 1 ? '' : 's'}):\n${formatRenderedPrompt(rendered)}`,
      messages: promptChatMessages(rendered),
    };
  }

  /**
   * Reads every `@server:uri` mention of a configured server. A mention that cannot be read fails
   * the whole message (nothing is sent half-attached); all together stay within the result limit.
   */
  async attach(text: string, signal?: AbortSignal): Promise<Attachments> {
    const names = this.#mount.summary().servers.map((server) => server.name);
    const mentions = findMentions(text, names);
    if (mentions.length === 0) return { blocks: [], notes: [] };
    await this.#settled();
    const out: Attachments = { blocks: [], notes: [] };
    let total = 0;
    for (const mention of mentions) {
      const catalog = catalogOf(this.#mount, mention.server, 'resources', STATUS_COMMAND);
      const read = await catalog.readResource(mention.uri, signal);
      total += read.bytes;
      if (total > LIMITS.toolResultBytes) {
        throw new CliError(
          CliErrorCode.CLI_USAGE,
          `the resources mentioned in this message total over ${LIMITS.toolResultBytes} bytes (the result limit) at ${mention.text}; mention fewer`,
        );
      }
      out.blocks.push(attachmentText(mention.server, mention.uri, read));
      const binary = read.contents.filter((content) => content.kind === 'blob').length;
      out.notes.push(
        `attached ${line(mention.text)} (${read.bytes} bytes${binary > 0 ? `, ${binary} binary shown as a placeholder` : ''})`,
      );
    }
    return out;
  }
}
