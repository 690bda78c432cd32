// Types of wasi-sandbox.mjs for the TypeScript tests (the module itself is plain ESM).
export declare class GuestExit extends Error {
  readonly exitCode: number;
}

export interface SandboxPreopen {
  guestPath: string;
  hostPath: string;
  writable: boolean;
}

export interface SandboxOptions {
  preopens?: SandboxPreopen[];
  onOutput?: (stream: 'stdout' | 'stderr', text: string) => void;
  outputLimitBytes?: number;
}

export declare function createSandboxWasi(
  options?: SandboxOptions,
): Record<string, Record<string, unknown>>;
