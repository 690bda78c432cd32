declare module 'clat:plugin/config@0.1.0' {
  /**
   * The plugin's own configuration as a JSON string; err when none is configured.
   */
  export function get(): string;
}
