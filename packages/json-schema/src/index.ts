/**
 * JSON Schema for CLAT's hosts: arguments checked against a tool's schema (Ajv), after the schema
 * itself is checked against its meta-schema (alone, without Ajv's engine: `@clat/json-schema/meta`).
 * @module
 */
export {
  type ArgumentValidator,
  compileArgumentValidator,
  warmArgumentValidators,
} from './argument-validator.js';
