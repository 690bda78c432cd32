/**
 * The catalog port: prompts and resources a mounted plugin offers for a person to use on request
 * (slash commands, mentions, listings). Nothing here reaches the model on its own: a frontend
 * decides what a person invoked, and the model reads resources only by calling the resource
 * tools a distribution opted into (resource-tools.ts), through the pipeline. Every text is the plugin's, unsanitised: frontends pass it
 * through the sanitiser before a terminal shows it.
 * @module
 */

/** One argument of a prompt, in the order the plugin declared it. */
export interface CatalogPromptArgument {
  readonly name: string;
  readonly description?: string;
  readonly required: boolean;
}

/** A prompt a person can render with string arguments. */
export interface CatalogPrompt {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly arguments: readonly CatalogPromptArgument[];
}

/**
 * One piece of content: `text`, or `blob` (base64 bytes a terminal shows as a placeholder). `uri`
 * is set when the content came from a resource.
 */
export type CatalogContent =
  | {
      readonly kind: 'text';
      readonly text: string;
      readonly uri?: string;
      readonly mimeType?: string;
    }
  | {
      readonly kind: 'blob';
      /** Base64, exactly as the plugin sent it. */
      readonly blob: string;
      /** Decoded size in bytes. */
      readonly bytes: number;
      readonly uri?: string;
      readonly mimeType?: string;
    };

/** One message of a rendered prompt. */
export interface CatalogMessage {
  readonly role: 'user' | 'assistant';
  readonly content: readonly CatalogContent[];
}

export interface RenderedPrompt {
  readonly description?: string;
  readonly messages: readonly CatalogMessage[];
}

/** A resource the plugin lists. */
export interface CatalogResource {
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  /** Size in bytes when the plugin states it. */
  readonly size?: number;
}

/** A parameterised resource address (RFC 6570 URI template). */
export interface CatalogResourceTemplate {
  readonly uriTemplate: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
}

export interface ResourceRead {
  readonly contents: readonly CatalogContent[];
  /** Serialized size of the plugin's whole answer in bytes (bounded by the tool result limit). */
  readonly bytes: number;
}

/**
 * What a mounted plugin offers for people to invoke. `prompts`/`resources` say whether the plugin
 * offers that kind at all; the methods of a kind it does not offer reject.
 */
export interface PluginCatalog {
  readonly prompts: boolean;
  readonly resources: boolean;
  listPrompts(signal?: AbortSignal): Promise<CatalogPrompt[]>;
  renderPrompt(
    name: string,
    args: Readonly<Record<string, string>>,
    signal?: AbortSignal,
  ): Promise<RenderedPrompt>;
  listResources(signal?: AbortSignal): Promise<CatalogResource[]>;
  listResourceTemplates(signal?: AbortSignal): Promise<CatalogResourceTemplate[]>;
  readResource(uri: string, signal?: AbortSignal): Promise<ResourceRead>;
}
