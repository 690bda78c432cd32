declare module 'clat:plugin/types@0.1.0' {
  /**
   * How a tool may affect the world; drives the permission mode table.
   * # Variants
   * 
   * ## `"pure"`
   * 
   * ## `"read"`
   * 
   * ## `"write"`
   * 
   * ## `"execute"`
   * 
   * ## `"network"`
   * 
   * ## `"external-read"`
   * 
   * ## `"destructive"`
   * 
   * ## `"session-write"`
   */
  export type Effect = 'pure' | 'read' | 'write' | 'execute' | 'network' | 'external-read' | 'destructive' | 'session-write';
  export interface Definition {
    name: string,
    description: string,
    /**
     * JSON Schema of the arguments, as a JSON string.
     */
    inputSchema: string,
    effect: Effect,
  }
}
