/**
 * Text views of server prompts and resources. Everything a server sent goes through the one
 * sanitiser before a terminal shows it; what the model receives is built here too, unsanitised
 * (text as text, a blob of UTF-8 text as its text, other binary content as a placeholder line).
 * @module
 */
import {
  blobText,
  type CatalogContent,
  type CatalogPrompt,
  type CatalogResource,
  type CatalogResourceTemplate,
  sanitizeTerminalLine as line,
  type RenderedPrompt,
  type ResourceRead,
  sanitizeTerminalText,
} from '@clat/kernel';
import type { ChatMessage } from '@clat/provider-openai';
import { columnsOf, fitLine, padColumns } from '../ui/columns.js';
import { mentionName } from './mentions.js';
import type { PromptCommandTable } from './prompt-commands.js';

/** The placeholder of binary content, for the model and the terminal alike. */
export function blobPlaceholder(content: Extract<CatalogContent, { kind: 'blob' }>): string {
  const where = content.uri === undefined ? '' : ` ${content.uri}`;
  return `[binary content${where}: ${content.mimeType ?? 'unknown type'}, ${content.bytes} bytes, not shown]`;
}

/** The text of a content: its text, a text blob decoded, else undefined (binary). */
function textOf(content: CatalogContent): string | undefined {
  return content.kind === 'text' ? content.text : blobText(content);
}

/** One content as plain text (unsanitised). */
function contentText(content: CatalogContent): string {
  return content.kind === 'text' ? content.text : (blobText(content) ?? blobPlaceholder(content));
}

/** A rendered prompt as chat messages for the model. */
export function promptChatMessages(rendered: RenderedPrompt): ChatMessage[] {
  return rendered.messages.map((message) => ({
    role: message.role,
    content: message.content.map(contentText).join('\n\n'),
  }));
}

/** A rendered prompt for the terminal: each message under its role. */
export function formatRenderedPrompt(rendered: RenderedPrompt): string {
  const parts: string[] = [];
  if (rendered.description !== undefined) parts.push(`${line(rendered.description)}\n`);
  for (const message of rendered.messages) {
    parts.push(`[${message.role}]\n`);
    for (const content of message.content) {
      parts.push(`${sanitizeTerminalText(contentText(content)).replace(/\n?$/, '\n')}`);
    }
  }
  return parts.join('');
}

/** What the model gets for one attached resource: the contents inside a labelled block. */
export function attachmentText(server: string, uri: string, read: ResourceRead): string {
  // The server wrote the body: a `</resource>` in it must not end the block early and let the
  // rest pass for the user's own words (or open a block that claims another server).
  const body = read.contents
    .map(contentText)
    .join('\n\n')
    .replace(/<(\/?resource)/gi, '&lt;$1');
  return `<resource server=${JSON.stringify(server)} uri=${JSON.stringify(uri)}>\n${body}\n</resource>`;
}

/** A resource read for the terminal: one header line per content, then its text. */
export function formatResourceRead(read: ResourceRead): string {
  if (read.contents.length === 0) return '(the resource has no contents)\n';
  return read.contents
    .map((content) => {
      const text = textOf(content);
      if (text === undefined && content.kind === 'blob')
        return `${line(blobPlaceholder(content))}\n`;
      const header = `--- ${line(content.uri ?? '')}${content.mimeType === undefined ? '' : ` (${line(content.mimeType)})`}\n`;
      return `${read.contents.length > 1 ? header : ''}${sanitizeTerminalText(text ?? '').replace(/\n?$/, '\n')}`;
    })
    .join('');
}

function argumentsLabel(prompt: CatalogPrompt): string {
  return prompt.arguments
    .map((argument) => (argument.required ? argument.name : `[${argument.name}]`))
    .join(' ');
}

function describe(item: { title?: string; description?: string }): string {
  return fitLine(item.description ?? item.title ?? '', 100);
}

/** `/prompts` and `clat prompts`: the slash commands, then what was skipped and why. */
export function formatPromptTable(table: PromptCommandTable): string {
  const out: string[] = [];
  if (table.commands.length === 0) out.push('(no server prompts)\n');
  else {
    const heads = table.commands.map((entry) =>
      line(`/${entry.command} ${argumentsLabel(entry.prompt)}`.trimEnd()),
    );
    const width = Math.max(...heads.map(columnsOf));
    out.push(`${table.commands.length} prompt${table.commands.length === 1 ? '' : 's'}:\n`);
    table.commands.forEach((entry, index) => {
      out.push(`  ${padColumns(heads[index] ?? '', width)}  ${describe(entry.prompt)}\n`);
    });
  }
  for (const skipped of table.skipped) {
    out.push(
      `skipped prompt ${line(JSON.stringify(skipped.prompt))} of ${line(skipped.server)}: ${line(skipped.reason)}\n`,
    );
  }
  for (const failed of table.failed) {
    out.push(`prompts of ${line(failed.server)} failed: ${line(failed.error)}\n`);
  }
  return out.join('');
}

/** One server's resources and templates for the terminal. */
export function formatResources(
  server: string,
  resources: readonly CatalogResource[],
  templates: readonly CatalogResourceTemplate[],
): string {
  const out = [
    `${line(server)}: ${resources.length} resource${resources.length === 1 ? '' : 's'}, ${templates.length} template${templates.length === 1 ? '' : 's'}\n`,
  ];
  for (const resource of resources) {
    const type = resource.mimeType === undefined ? '' : `  ${line(resource.mimeType)}`;
    out.push(
      `  @${line(mentionName(server))}:${line(resource.uri)}${type}  ${describe(resource)}\n`,
    );
  }
  for (const template of templates) {
    out.push(`  template ${line(template.uriTemplate)}  ${describe(template)}\n`);
  }
  return out.join('');
}
