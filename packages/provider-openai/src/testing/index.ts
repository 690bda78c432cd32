/**
 * Test helpers of the OpenAI-compatible provider: a scripted chat-completions server on
 * 127.0.0.1 and the SSE chunk builder, for tests of the provider and of the hosts that use it.
 * @module
 */
export {
  type ChatServer,
  chunk,
  completion,
  /** @public an element of ChatServer's recorded requests */
  type RecordedRequest,
  type Reply,
  type ScriptedReply,
  /** @public a tool call in a ScriptedReply */
  type ScriptedToolCall,
  startChatServer,
} from './chat-server.js';
