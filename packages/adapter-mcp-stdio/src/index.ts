/**
 * @clat/adapter-mcp-stdio: the stdio Transport for MCP servers: a subprocess in its own process
 * group, bounded newline-delimited JSON framing, a redacted stderr tail and a reaped teardown.
 * @module
 */
export {
  isStdioTransportError,
  StdioTransportError,
  StdioTransportErrorCode,
  type StdioTransportErrorOptions,
} from './errors.js';
export { LineDecoder, type LineDecoderHandlers } from './line-decoder.js';
export { resolveServerCwd } from './server-cwd.js';
export type { StdioTransportOptions } from './stdio-options.js';
export { StdioTransport, WRITE_QUEUE_BYTES } from './stdio-transport.js';
export { StdioTransportFactory } from './stdio-transport-factory.js';
export {
  type StdioTransportProvider,
  type StdioTransportProviderOptions,
  stdioTransport,
} from './stdio-transport-provider.js';
