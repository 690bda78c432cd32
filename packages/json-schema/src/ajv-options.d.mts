// Types of ajv-options.mjs (plain ESM, shared with scripts/meta-validators.mjs).
export declare const AJV_OPTIONS: {
  readonly strict: false;
  readonly validateFormats: false;
  readonly addUsedSchema: false;
  readonly logger: false;
  readonly allErrors: false;
};
