/**
 * Rich tool output: the content blocks a tool returned (text, image, audio, embedded resource,
 * resource link), kept whole, and the one text rendering every text-only reader sees.
 * @module
 */
import { utf8Length } from './json.js';

export interface TextContentBlock {
  type: 'text';
  text: string;
}

/** Base64 `data` of the given media type. */
export interface ImageContentBlock {
  type: 'image';
  data: string;
  mimeType: string;
}

/** Base64 `data` of the given media type. */
export interface AudioContentBlock {
  type: 'audio';
  data: string;
  mimeType: string;
}

/** A resource's contents inside the result: `text`, or base64 `blob`. */
export interface EmbeddedResourceBlock {
  type: 'resource';
  resource: { uri: string; mimeType?: string; text?: string; blob?: string };
}

/** A pointer to a resource the tool did not inline. */
export interface ResourceLinkBlock {
  type: 'resource_link';
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
}

/**
 * One block of a tool result. Blocks keep every other field the tool sent (annotations,
 * metadata), so a JSON dump of the result shows exactly what arrived.
 */
export type ToolContentBlock =
  | TextContentBlock
  | ImageContentBlock
  | AudioContentBlock
  | EmbeddedResourceBlock
  | ResourceLinkBlock;

const KIB = 1024;

/** `512 B`, `1.2 KiB`, `3.4 MiB`. */
export function formatByteSize(bytes: number): string {
  if (bytes < KIB) return `${bytes} B`;
  if (bytes < KIB * KIB) return `${(bytes / KIB).toFixed(1)} KiB`;
  return `${(bytes / (KIB * KIB)).toFixed(1)} MiB`;
}

/** Decoded size of base64 text (without decoding it). */
export function base64DecodedBytes(data: string): number {
  let end = data.length;
  while (end > 0 && data.charCodeAt(end - 1) === 61 /* = */) end--;
  return Math.floor((end * 3) / 4);
}

/** Bytes one block occupies in a result: its texts, URIs and encoded payloads, counted once. */
export function contentBlockBytes(block: ToolContentBlock): number {
  switch (block.type) {
    case 'text':
      return utf8Length(block.text);
    case 'image':
    case 'audio':
      // Base64 is ASCII: one byte per character.
      return block.data.length + block.mimeType.length;
    case 'resource': {
      const { resource } = block;
      return (
        utf8Length(resource.uri) +
        (resource.text === undefined ? 0 : utf8Length(resource.text)) +
        (resource.blob === undefined ? 0 : resource.blob.length)
      );
    }
    case 'resource_link':
      return (
        utf8Length(block.uri) +
        utf8Length(block.name) +
        (block.description === undefined ? 0 : utf8Length(block.description))
      );
  }
}

/** The one-line label of a non-text block: `[image image/png 1.2 KiB]`. */
export function contentBlockLabel(block: ToolContentBlock): string {
  switch (block.type) {
    case 'text':
      return '[text]';
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType} ${formatByteSize(base64DecodedBytes(block.data))}]`;
    case 'resource': {
      const { resource } = block;
      const size =
        resource.text !== undefined
          ? formatByteSize(utf8Length(resource.text))
          : formatByteSize(base64DecodedBytes(resource.blob ?? ''));
      const mime = resource.mimeType === undefined ? '' : ` ${resource.mimeType}`;
      return `[resource ${resource.uri}${mime} ${size}]`;
    }
    case 'resource_link': {
      const name = block.title ?? block.name;
      const mime = block.mimeType === undefined ? '' : ` ${block.mimeType}`;
      const about = block.description === undefined ? '' : `: ${block.description}`;
      return `[link ${block.uri}${mime} "${name}"${about}]`;
    }
  }
}

/**
 * The text a text-only reader sees (the model without image input, `clat call`): text blocks as
 * they are, embedded text resources as their label then their text, every other block as its
 * label, one block per line. With no text block, structured output follows as JSON text.
 * `structuredJson` is that JSON when the caller already has it (so it is serialised once).
 */
export function renderToolContent(
  blocks: readonly ToolContentBlock[],
  structuredJson?: string,
): string {
  // The common result, one text block, is its own rendering: no parts array, no join.
  const only = blocks.length === 1 ? blocks[0] : undefined;
  if (only?.type === 'text') return only.text;
  const parts: string[] = [];
  let sawText = false;
  for (const block of blocks) {
    if (block.type === 'text') {
      sawText = true;
      parts.push(block.text);
    } else if (block.type === 'resource' && block.resource.text !== undefined) {
      sawText = true;
      parts.push(`${contentBlockLabel(block)}\n${block.resource.text}`);
    } else {
      parts.push(contentBlockLabel(block));
    }
  }
  if (!sawText && structuredJson !== undefined) parts.push(structuredJson);
  return parts.join('\n');
}
