/** clat-gateway as a library: the composition and the MCP server factory. @module */
export { EFFECT_ANNOTATIONS, type EffectAnnotations, toolMeta } from './annotations.js';
export { type GatewayArgs, gatewayClatHome, parseGatewayArgs, USAGE } from './cli-args.js';
export { type GatewayHost, type GatewayHostOptions, openGatewayHost } from './compose.js';
export { GatewayError, GatewayErrorCode } from './errors.js';
export { GatewayRuntime } from './gateway-runtime.js';
export { createGatewayServer, type GatewayServerOptions, STATUS_URI } from './gateway-server.js';
export {
  type HttpBind,
  type HttpGateway,
  MCP_PATH,
  parseHttpBind,
  serveHttp,
} from './http-serve.js';
export { main } from './main.js';
export { GATEWAY_VERSION } from './version.js';
