/** The gateway's own version, reported as MCP serverInfo and clientInfo. @module */
export const GATEWAY_VERSION = '0.1.0';
