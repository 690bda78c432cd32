declare module 'clat:plugin/sampling@0.1.0' {
  export function createMessage(request: Request): Outcome;
  /**
   * # Variants
   * 
   * ## `"user"`
   * 
   * ## `"assistant"`
   */
  export type Role = 'user' | 'assistant';
  export interface Message {
    role: Role,
    text: string,
  }
  export interface Request {
    systemPrompt?: string,
    messages: Array<Message>,
    maxTokens: bigint,
    temperature?: number,
  }
  export interface Outcome {
    text: string,
    model: string,
    stopReason: string,
  }
}
