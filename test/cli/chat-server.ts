/**
 * The scripted chat-completions server of `@clat/provider-openai/testing`, for `clat exec` and
 * session tests: a conversation is scripted as turns (tool calls or text), or a turn that never
 * answers; each request is recorded with its headers.
 * @module
 */
import {
  completion,
  type Reply,
  startChatServer,
  type ScriptedReply as Turn,
} from '@clat/provider-openai/testing';

export interface RecordedChatRequest {
  headers: Record<string, string | string[] | undefined>;
  body: {
    model?: string;
    messages: { role: string; content: string | null; tool_call_id?: string }[];
    tools?: { type: string; function: { name: string } }[];
  };
}

/** A reply that asks for tool calls, one that answers with text, or one that never answers. */
export type ScriptedReply = Turn | { hang: true };

export interface FakeChatServer {
  /** Base URL ending in /v1. */
  url: string;
  requests: RecordedChatRequest[];
  close(): Promise<void>;
}

export async function startFakeChatServer(replies: ScriptedReply[]): Promise<FakeChatServer> {
  const script: Reply[] = replies.map((reply, index) =>
    'hang' in reply ? reply : completion(reply, index + 1),
  );
  const server = await startChatServer(script);
  return {
    url: server.url,
    // The same recorded requests, typed as the chat-completions body the CLI sends.
    requests: server.requests as unknown as RecordedChatRequest[],
    close: () => server.close(),
  };
}

/**
 * The `provider` section of config.json that points `clat` at a fake chat server at `url`, its
 * API key read from the environment variable `apiKeyEnv` when one is named.
 */
export function fakeModelProvider(url: string, apiKeyEnv?: string): Record<string, string> {
  const provider: Record<string, string> = {
    kind: 'openai-compatible',
    vendor: 'local',
    baseUrl: url,
    model: 'fake-model',
  };
  if (apiKeyEnv !== undefined) provider.apiKeyEnv = apiKeyEnv;
  return provider;
}
