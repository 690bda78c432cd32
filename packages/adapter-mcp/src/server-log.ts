/**
 * ServerLog: the bounded tail of one MCP server's log messages (`notifications/message`), kept
 * for status the way the transport keeps its stderr tail. A server may send thousands: each costs
 * one string cut on arrival, and redaction happens only when status reads the tail.
 * @module
 */
import { LIMITS, type MountLogEntry, redactSecrets } from '@clat/kernel';

/** The syslog severities of MCP logging, least severe first. */
const LOG_LEVELS = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const;

export type McpLogLevel = (typeof LOG_LEVELS)[number];

/**
 * The level CLAT asks servers to log from (`logging/setLevel`, or the modern per-request
 * `logLevel`): status shows warnings and above, so chattier levels would only churn the tail.
 */
export const DEFAULT_LOG_LEVEL: McpLogLevel = 'warning';

const KNOWN: ReadonlySet<string> = new Set(LOG_LEVELS);

/** Characters kept of a logger name. */
const LOGGER_CHARS = 64;

/** Raw texts keep slack beyond the display cap, so redaction still sees whole tokens. */
const RAW_CHARS = LIMITS.logEntryChars * 8;

interface RawEntry {
  level: string;
  logger: string | undefined;
  text: string;
}

/** The text of a message's `data`: a string as it is, anything else as compact JSON. */
function dataText(data: unknown): string {
  if (typeof data === 'string') return data;
  if (data === undefined) return '';
  try {
    return JSON.stringify(data) ?? String(data);
  } catch {
    return String(data);
  }
}

function cut(text: string, chars: number): string {
  return text.length > chars ? `${text.slice(0, chars)}…` : text;
}

export class ServerLog {
  readonly #entries: RawEntry[] = [];

  /** Keeps one `notifications/message` (its params); the oldest entry goes past the cap. */
  add(params: Record<string, unknown>): void {
    const level =
      typeof params.level === 'string' && KNOWN.has(params.level) ? params.level : 'unknown';
    const logger =
      typeof params.logger === 'string' && params.logger !== ''
        ? params.logger.slice(0, LOGGER_CHARS)
        : undefined;
    this.#entries.push({ level, logger, text: dataText(params.data).slice(0, RAW_CHARS) });
    if (this.#entries.length > LIMITS.logTailEntries) this.#entries.shift();
  }

  /** The kept messages, oldest first: each redacted before it is cut, so a cut hides no key. */
  entries(): MountLogEntry[] {
    return this.#entries.map((raw) => {
      const text = cut(redactSecrets(raw.text), LIMITS.logEntryChars);
      if (raw.logger === undefined) return { level: raw.level, text };
      return { level: raw.level, logger: redactSecrets(raw.logger), text };
    });
  }
}
