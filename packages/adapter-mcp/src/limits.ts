/**
 * Limits of the MCP wire, from spec/mcp-integration.txt "Resource limits": frames, handshakes,
 * listings, DSH prompts, the inbound request queue. The limits every plugin runtime shares (tool
 * call, its host-request extension and result, sampling, elicitation, stderr tail, shutdown
 * grace) are the kernel's `LIMITS`.
 * @module
 */

const KiB = 1024;
const MiB = 1024 * KiB;
const SECOND = 1000;

export const MCP_LIMITS = {
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
  /**
   * Tools one tools/list may return across its pages: a memory bound against a hostile server.
   * The per-server cap (kernel `LIMITS.toolsPerServer`) counts the tools that pass the entry's
   * includeTools/excludeTools, so a large server narrowed by them still mounts.
   */
  listedTools: 8192,
  /** Marked DSH system prompts per server. */
  dshPromptsPerServer: 128,
  /** One resolved DSH system prompt. */
  dshPromptBytes: 256 * KiB,
  /**
   * Restarts of one server whose connection closed after it mounted (a crashed stdio server),
   * per project scope: each on the next call of one of its tools, so a server that crashes on
   * every start does not loop.
   */
  serverRestarts: 3,
  /** Inbound server-request queue per connection. */
  inboundRequestQueue: 16,
  /**
   * `input_required` rounds of one request (2026-07-28 multi-round-trip) before CLAT gives up;
   * the TypeScript SDK client uses the same cap.
   */
  inputRounds: 10,
  /** Input requests one `input_required` result may list. */
  inputRequestsPerRound: 16,
  /** Pause before retrying a round that carried only requestState (no input to wait for). */
  inputStateOnlyPacingMs: 250,
  /**
   * A task-augmented tools/call, from task creation to its result: the tool-call deadline plus
   * the whole host-request extension, since a task exists for work longer than one call.
   */
  taskWaitMs: 12 * 60 * SECOND,
  /** One tasks/get, or tasks/result once the task is terminal. */
  taskRequestMs: 30 * SECOND,
  /** tasks/cancel after a cancelled call: short, so that the cancel stays prompt. */
  taskCancelMs: 2 * SECOND,
  /** First tasks/get poll delay; it doubles per poll up to the cap, never below pollInterval. */
  taskPollMinMs: 250,
  /** Longest wait between two tasks/get polls (a larger server pollInterval still wins). */
  taskPollMaxMs: 5 * SECOND,
} as const;

export type McpLimitName = keyof typeof MCP_LIMITS;
