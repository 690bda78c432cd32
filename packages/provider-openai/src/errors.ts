/**
 * Typed provider errors. Messages never contain the API key: response bodies are redacted with the
 * configured key before they reach an error.
 * @module
 */

import { ClatError, clatErrorGuard } from '@clat/kernel';

export const ProviderErrorCode = {
  /** The provider configuration is invalid (missing model, bad URL, no key). */
  PROVIDER_CONFIG_INVALID: 'PROVIDER_CONFIG_INVALID',
  /** The server rejected the credentials (401/403). */
  PROVIDER_AUTH_FAILED: 'PROVIDER_AUTH_FAILED',
  /** The server kept answering 429 after every retry. */
  PROVIDER_RATE_LIMITED: 'PROVIDER_RATE_LIMITED',
  /** A non-2xx answer that is not auth or rate limiting. */
  PROVIDER_HTTP_ERROR: 'PROVIDER_HTTP_ERROR',
  /** The connection failed (DNS, refused, reset) after every retry. */
  PROVIDER_NETWORK_ERROR: 'PROVIDER_NETWORK_ERROR',
  /** One attempt exceeded its deadline after every retry. */
  PROVIDER_TIMEOUT: 'PROVIDER_TIMEOUT',
  /** The body was not a chat-completions response. */
  PROVIDER_BAD_RESPONSE: 'PROVIDER_BAD_RESPONSE',
} as const;

export type ProviderErrorCode = (typeof ProviderErrorCode)[keyof typeof ProviderErrorCode];

export interface ProviderErrorOptions {
  status?: number;
  retryable?: boolean;
  /** The server's `Retry-After`, when it sent one. */
  retryAfterMs?: number | undefined;
  cause?: unknown;
}

/** A failure of one chat-completions call; `status` is the HTTP status when there was one. */
export class ProviderError extends ClatError<ProviderErrorCode> {
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(code: ProviderErrorCode, message: string, options: ProviderErrorOptions = {}) {
    super(code, message, { cause: options.cause });
    this.name = 'ProviderError';
    this.status = options.status;
    this.retryable = options.retryable ?? false;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** True for a ProviderError from any bundled copy of this package. */
export const isProviderError = clatErrorGuard<ProviderError>('ProviderError');
