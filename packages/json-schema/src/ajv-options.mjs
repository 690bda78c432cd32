// The Ajv options tool input schemas are validated with (argument-validator.ts), and the options
// scripts/meta-validators.mjs compiles the meta-schema validators of src/gen with: one object, so
// the generated code and the run-time engines cannot drift apart. Plain ESM, as the generator
// script runs under Node without TypeScript.

/**
 * Guest schemas come from many generators (zod, typebox, hand-written): unknown keywords and
 * formats are ignored rather than refused, and nothing is logged or cached by $id.
 */
export const AJV_OPTIONS = Object.freeze({
  strict: false,
  validateFormats: false,
  addUsedSchema: false,
  logger: false,
  allErrors: false,
});
