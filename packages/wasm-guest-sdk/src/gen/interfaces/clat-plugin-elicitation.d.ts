declare module 'clat:plugin/elicitation@0.1.0' {
  export function elicit(form: Form): Outcome;
  /**
   * # Variants
   * 
   * ## `"text"`
   * 
   * ## `"number"`
   * 
   * ## `"boolean"`
   * 
   * ## `"choice"`
   */
  export type FieldKind = 'text' | 'number' | 'boolean' | 'choice';
  export type Value = ValueText | ValueNumber | ValueBoolean;
  export interface ValueText {
    tag: 'text',
    val: string,
  }
  export interface ValueNumber {
    tag: 'number',
    val: number,
  }
  export interface ValueBoolean {
    tag: 'boolean',
    val: boolean,
  }
  export interface Field {
    name: string,
    title?: string,
    description?: string,
    kind: FieldKind,
    options: Array<string>,
    required: boolean,
    'default'?: Value,
  }
  export interface Form {
    message: string,
    fields: Array<Field>,
  }
  export type Outcome = OutcomeAccepted | OutcomeDeclined | OutcomeCancelled;
  export interface OutcomeAccepted {
    tag: 'accepted',
    val: Array<[string, Value]>,
  }
  export interface OutcomeDeclined {
    tag: 'declined',
  }
  export interface OutcomeCancelled {
    tag: 'cancelled',
  }
}
