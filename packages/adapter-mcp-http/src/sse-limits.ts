/**
 * Reconnection bounds shared by every SSE stream of the transport: a POST's response stream
 * resumed with GET, and the standalone GET stream.
 * @module
 */

/**
 * Reconnections of one SSE stream before the transport gives up: in total for a POST's response,
 * in a row without a single event for the standalone GET stream.
 */
export const SSE_RESUME_ATTEMPTS = 5;

/** Reconnection delay when the server sent no `retry:` field. */
export const SSE_DEFAULT_RETRY_MS = 1000;

/**
 * Floor of a server's `retry:` delay. `retry: 0` on a stream the server closes at once would
 * otherwise reconnect in a tight loop.
 */
export const SSE_MIN_RETRY_MS = 100;
