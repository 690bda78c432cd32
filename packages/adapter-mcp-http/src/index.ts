/**
 * @clat/adapter-mcp-http: the Streamable HTTP transport of CLAT's MCP client.
 * @module
 */
export { HttpTransportError, HttpTransportErrorCode, isHttpTransportError } from './errors.js';
export { encodeHeaderValue } from './http-headers.js';
export {
  HttpTransport,
  HttpTransportFactory,
  type HttpTransportOptions,
} from './http-transport.js';
export {
  type HttpTransportProvider,
  type HttpTransportProviderOptions,
  httpTransport,
} from './http-transport-provider.js';
