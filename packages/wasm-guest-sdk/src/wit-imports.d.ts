// The clat:plugin@0.1.0 imports as componentize-js exposes them to a guest (jco value shapes).
declare module 'clat:plugin/host@0.1.0' {
  export function context(): string;
  export function callTool(name: string, argsJson: string): string;
}
declare module 'clat:plugin/sampling@0.1.0' {
  export interface Message {
    role: 'user' | 'assistant';
    text: string;
  }
  export interface Request {
    systemPrompt?: string;
    messages: Message[];
    maxTokens: bigint;
    temperature?: number;
  }
  export interface Outcome {
    text: string;
    model: string;
    stopReason: string;
  }
  export function createMessage(request: Request): Outcome;
}
declare module 'clat:plugin/elicitation@0.1.0' {
  export type Value =
    | { tag: 'text'; val: string }
    | { tag: 'number'; val: number }
    | { tag: 'boolean'; val: boolean };
  export interface Field {
    name: string;
    title?: string;
    description?: string;
    kind: 'text' | 'number' | 'boolean' | 'choice';
    options: string[];
    required: boolean;
    default?: Value;
  }
  export interface Form {
    message: string;
    fields: Field[];
  }
  export type Outcome =
    | { tag: 'accepted'; val: [string, Value][] }
    | { tag: 'declined' }
    | { tag: 'cancelled' };
  export function elicit(form: Form): Outcome;
}
declare module 'clat:plugin/config@0.1.0' {
  export function get(): string;
}
