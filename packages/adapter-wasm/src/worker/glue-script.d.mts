// Types of glue-script.mjs (plain ESM, shared with the guest worker).
export declare const GLUE_SCRIPT_VERSION: string;
export declare const GLUE_SCRIPT_HEAD_LINES: number;
export declare function glueScript(glueSource: string): string | undefined;
export declare function withoutDebugLog(glueSource: string): string;
