/**
 * Test helpers of the OpenAI-compatible provider: a scripted chat-completions server on
 * 127.0.0.1 and the SSE chunk builder, for tests of the provider and of the hosts that use it.
 * @module
 */
export {
  type ChatServer,
  chunk,
  completion,
  type RecordedRequest,
  type Reply,
  type ScriptedReply,
  type ScriptedToolCall,
  startChatServer,
} from './chat-server.js';
