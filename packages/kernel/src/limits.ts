/**
 * Every resource limit of the plugin host, from spec/mcp-integration.txt "Resource limits" plus the
 * seeds the other specs fix. Code reads limits from here only; never repeat a number elsewhere.
 * @module
 */

const KiB = 1024;
const MiB = 1024 * KiB;
const SECOND = 1000;
const MINUTE = 60 * SECOND;

export const LIMITS = {
  /** One stdio frame, either direction. */
  stdioFrameBytes: 4 * MiB,
  /** Legacy initialize/initialized handshake. */
  legacyHandshakeMs: 10 * SECOND,
  /** Modern server/discover probe, then a fresh legacy fallback. */
  modernProbeMs: 3 * SECOND,
  /** One tools/list (or prompts/list) page. */
  listPageMs: 30 * SECOND,
  /** tools/list pages per server. */
  listPages: 32,
  /** Tools per server. */
  toolsPerServer: 512,
  /** Marked DSH system prompts per server. */
  dshPromptsPerServer: 128,
  /** One resolved DSH system prompt. */
  dshPromptBytes: 256 * KiB,
  /** One tools/call, before host-request extensions. */
  toolCallMs: 120 * SECOND,
  /** One extension step while a same-connection host request is pending. */
  toolCallExtensionStepMs: 60 * SECOND,
  /** Total host-request extension of one tools/call. */
  toolCallExtensionTotalMs: 10 * MINUTE,
  /** A tool result. */
  toolResultBytes: 1 * MiB,
  /** Nesting depth of a tool result's structured JSON; deeper results are refused. */
  toolResultDepth: 512,
  /** Inbound server-request queue per connection. */
  inboundRequestQueue: 16,
  /** Messages in one sampling request (text only). */
  samplingMessages: 32,
  /** Requested output tokens of one sampling request. */
  samplingMaxOutputTokens: 8192,
  /** Characters across system prompt and messages of one sampling request. */
  samplingOutboundChars: 262_144,
  /** Extension-sampling requests per run, across MCP, WASM and DSH. */
  samplingRequestsPerRun: 64,
  /** Approximate token spend guard per run. */
  samplingTokensPerRun: 1_000_000,
  /** Fields of one elicitation form. */
  elicitationFields: 16,
  /** Choices of one elicitation field. */
  elicitationChoices: 16,
  /** Re-asks of an invalid number answer. */
  elicitationNumberRetries: 2,
  /** Characters of one elicitation form message. */
  elicitationMessageChars: 4096,
  /** Elicitation forms per run, across MCP, WASM and DSH (dialog-flood guard). */
  elicitationFormsPerRun: 64,
  /** One provider call of an approved sampling request. */
  samplingProviderMs: 120 * SECOND,
  /** Wait of the first run for the initial MCP/DSH surface before the registries freeze. */
  initialSurfaceWaitMs: 20 * SECOND,
  /** Stderr lines kept per server. */
  stderrTailLines: 20,
  /** Bytes kept of one stderr line. */
  stderrLineBytes: 512,
  /** Grace between closing stdin and SIGTERM, and between SIGTERM and SIGKILL. */
  shutdownGraceMs: 3 * SECOND,
  /** Maximum tool name length before the stable hash suffix. */
  toolNameChars: 64,
  /** Tool description length before truncation. */
  toolDescriptionChars: 4096,
  /** Messages of run history in a context snapshot. */
  contextMessages: 64,
  /** Serialized context snapshot. */
  contextSnapshotBytes: 256 * KiB,
  /** Plugin configuration stored in the registry. */
  pluginConfigBytes: 64 * KiB,
  /** Default WASM guest memory cap. */
  wasmMemoryBytes: 256 * MiB,
  /** Calls waiting for one WASM plugin's instance (it runs one at a time); more fail fast. */
  wasmCallQueue: 16,
} as const;

export type LimitName = keyof typeof LIMITS;
