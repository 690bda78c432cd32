/**
 * A CLAT WASM plugin written against @clat/wasm-guest-sdk. It reads a project file through the
 * host's `read_file` tool (so the run's permission pipeline and path fence apply) and asks the
 * session model for a summary through sampling (which the user approves).
 * @module
 */
import { definePlugin, defineTool, host, sampling } from '@clat/wasm-guest-sdk';

interface ReadFileOutput {
  path: string;
  content: string;
}

const summarizeFile = defineTool<{ path: string; maxTokens?: number }>({
  name: 'summarize_file',
  description: 'Summarizes one project file with the session model.',
  effect: 'read',
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'Project-relative file path' },
      maxTokens: { type: 'integer', minimum: 1, maximum: 8192 },
    },
    required: ['path'],
    additionalProperties: false,
  },
  run({ path, maxTokens }) {
    const file = host.callTool<ReadFileOutput>('read_file', { path });
    const outcome = sampling.createMessage({
      systemPrompt: 'You summarize source files in two sentences.',
      messages: [{ role: 'user', text: `Summarize ${file.path}:\n\n${file.content}` }],
      maxTokens: maxTokens ?? 256,
    });
    return { path: file.path, summary: outcome.text, model: outcome.model };
  },
});

const projectInfo = defineTool({
  name: 'project_info',
  description: 'Describes the active project and run as the host sees them.',
  effect: 'read',
  run() {
    const context = host.context();
    return {
      root: context.project.root,
      mode: context.run?.permissionMode ?? null,
      model: context.run?.model ?? null,
      hostTools: context.hostTools,
    };
  },
});

const wordCount = defineTool<{ text: string }>({
  name: 'word_count',
  description: 'Counts the words of a text (pure; no host access).',
  effect: 'pure',
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string' } },
    required: ['text'],
  },
  run({ text }) {
    const words = text.split(/\s+/).filter((word) => word !== '');
    return { words: words.length };
  },
});

export const tools = definePlugin({ tools: [summarizeFile, projectInfo, wordCount] });
