declare module 'clat:plugin/host@0.1.0' {
  /**
   * A bounded, detached JSON snapshot of the active project/run/session.
   */
  export function context(): string;
  /**
   * Calls one allowlisted native host tool through the run's permission pipeline.
   */
  export function callTool(name: string, argsJson: string): string;
}
