/**
 * In-memory fakes for tests of the kernel and its adapters. Fakes stand in for the frontend only;
 * transports and servers in tests are real processes.
 * @module
 */
export { ScriptedApprover, ScriptedAsker } from './fakes.js';
export { createLinkedTransportPair, InMemoryTransport } from './in-memory-transport.js';
