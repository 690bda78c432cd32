/**
 * The meta-schema check alone (`@clat/json-schema/meta`): for a host that only needs to know
 * whether a schema is valid, without loading Ajv's engine (the MCP core checks every listed tool).
 * @module
 */
export { schemaProblem } from './meta-schema.js';
