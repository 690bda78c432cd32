/**
 * Test helpers of the MCP core: a linked in-memory Transport pair (queued until `start()`), for
 * tests of the client core and of code that speaks JSON-RPC. Real transports are tested with real
 * processes and servers.
 * @module
 */
export { createLinkedTransportPair, InMemoryTransport } from './in-memory-transport.js';
