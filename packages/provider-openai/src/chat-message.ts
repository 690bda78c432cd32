/**
 * The messages of a chat request and their OpenAI-compatible wire form, including user messages
 * with image parts (sent as `image_url` data URIs).
 * @module
 */

export interface ChatToolCall {
  id: string;
  name: string;
  /** Raw JSON text of the arguments, exactly as the model produced it. */
  arguments: string;
}

/** One part of a multi-part user message: text, or a base64 image. */
export type ChatContentPart =
  | { type: 'text'; text: string }
  | { type: 'image'; mimeType: string; data: string };

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ChatContentPart[] }
  | { role: 'assistant'; content: string; toolCalls?: ChatToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

/** Image types OpenAI-compatible vision endpoints accept as `image_url` data URIs. */
export const CHAT_IMAGE_TYPES: ReadonlySet<string> = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
]);

function toWirePart(part: ChatContentPart): Record<string, unknown> {
  if (part.type === 'text') return { type: 'text', text: part.text };
  return { type: 'image_url', image_url: { url: `data:${part.mimeType};base64,${part.data}` } };
}

export function toWireMessage(message: ChatMessage): Record<string, unknown> {
  switch (message.role) {
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    case 'assistant': {
      const wire: Record<string, unknown> = { role: 'assistant', content: message.content };
      if (message.toolCalls !== undefined && message.toolCalls.length > 0) {
        wire.tool_calls = message.toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.arguments },
        }));
      }
      return wire;
    }
    case 'user':
      return {
        role: 'user',
        content:
          typeof message.content === 'string' ? message.content : message.content.map(toWirePart),
      };
    default:
      return { role: message.role, content: message.content };
  }
}
