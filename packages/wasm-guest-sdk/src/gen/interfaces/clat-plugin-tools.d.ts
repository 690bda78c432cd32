/// <reference path="./clat-plugin-types.d.ts" />
declare module 'clat:plugin/tools@0.1.0' {
  export function listTools(): Array<Definition>;
  /**
   * Arguments and the ok payload are JSON strings; err is a human-readable message.
   */
  export function call(name: string, argsJson: string): string;
  export type Definition = import('clat:plugin/types@0.1.0').Definition;
}
