/**
 * Tool-result images for a model that reads them. Chat-completions tool messages carry text only,
 * so the images of one step's tool results follow those results as one user message of image
 * parts; a text-only model reads the `[image …]` labels in the tool messages instead.
 * @module
 */
import type { ToolResult } from '@clat/kernel';
import {
  CHAT_IMAGE_TYPES,
  type ChatContentPart,
  type ChatMessage,
  type ChatToolCall,
} from '@clat/provider-openai';

/** The image parts of one tool result, introduced by a line naming the call. */
export function toolImageParts(
  call: ChatToolCall,
  result: ToolResult | undefined,
): ChatContentPart[] {
  const parts: ChatContentPart[] = [];
  for (const block of result?.blocks ?? []) {
    if (block.type === 'image' && CHAT_IMAGE_TYPES.has(block.mimeType)) {
      parts.push({ type: 'image', mimeType: block.mimeType, data: block.data });
    }
  }
  if (parts.length === 0) return parts;
  const count = parts.length === 1 ? 'the image' : `the ${parts.length} images`;
  parts.unshift({
    type: 'text',
    text: `Here is ${count} tool call ${call.id} (${call.name}) returned.`,
  });
  return parts;
}

/** One user message with every image of a step's tool results, or undefined when there is none. */
export function toolImagesMessage(parts: ChatContentPart[]): ChatMessage | undefined {
  return parts.length === 0 ? undefined : { role: 'user', content: parts };
}
