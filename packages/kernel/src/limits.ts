/**
 * The runtime-neutral resource limits of the plugin host, from spec/mcp-integration.txt "Resource
 * limits" plus the seeds the other specs fix: the ones every plugin runtime shares. Limits of the
 * MCP wire (frames, handshakes, listings, DSH prompts, the inbound queue) are `MCP_LIMITS` in
 * `@clat/adapter-mcp`. Code reads limits from these tables only; never repeat a number elsewhere.
 * @module
 */

const KiB = 1024;
const MiB = 1024 * KiB;
const SECOND = 1000;
const MINUTE = 60 * SECOND;

export const LIMITS = {
  /** Tools per server. */
  toolsPerServer: 512,
  /** One tool call of a plugin, before any host-request extension its runtime grants. */
  toolCallMs: 120 * SECOND,
  /** One extension step of a tool call while a host request of that call is pending. */
  toolCallExtensionStepMs: 60 * SECOND,
  /** Total host-request extension of one tool call. */
  toolCallExtensionTotalMs: 10 * MINUTE,
  /** A tool result. */
  toolResultBytes: 1 * MiB,
  /** Nesting depth of a tool result's structured JSON; deeper results are refused. */
  toolResultDepth: 512,
  /**
   * Nesting depth of a tool's input schema; a deeper tool is not registered. Far above real
   * schemas, far below what recursive readers of schemas (validators, JSON output) survive.
   */
  toolSchemaDepth: 128,
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
  /** Wait of the first run for the initial plugin surface before the registries freeze. */
  initialSurfaceWaitMs: 20 * SECOND,
  /** Stderr lines kept per server. */
  stderrTailLines: 20,
  /** Bytes kept of one stderr line. */
  stderrLineBytes: 512,
  /** Messages of a plugin's own log kept per plugin (the stderr tail's count). */
  logTailEntries: 20,
  /** Characters kept of one log message's text (a stderr line's). */
  logEntryChars: 512,
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
