/** clat-gateway as a library: the composition and the MCP server factory. @module */
export { gatewayClatHome } from './cli-args.js';
/** @public the gateway's composition, for embedding (README) */
export { type GatewayHost, type GatewayHostOptions, openGatewayHost } from './compose.js';
/** @public the gateway's error class and the codes callers switch on (README) */
export { GatewayError, GatewayErrorCode } from './errors.js';
/** @public what every connection shares, for embedding (README) */
export { GatewayRuntime } from './gateway-runtime.js';
/** @public the MCP server factory and its status resource, for embedding (README) */
export { createGatewayServer, type GatewayServerOptions, STATUS_URI } from './gateway-server.js';
/** @public the Streamable HTTP face and its bind rule, for embedding (README) */
export {
  type HttpBind,
  type HttpGateway,
  MCP_PATH,
  parseHttpBind,
  serveHttp,
} from './http-serve.js';
/** @public runs `clat-gateway` in-process (README) */
export { main } from './main.js';
/** @public the gateway's version (README) */
export { GATEWAY_VERSION } from './version.js';
