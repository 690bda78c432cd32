/** Errors of clat-gateway: one class, an `as const` code table. @module */
import { ClatError } from '@clat/kernel';

export const GatewayErrorCode = {
  USAGE: 'GATEWAY_USAGE',
  PROJECT_UNTRUSTED: 'GATEWAY_PROJECT_UNTRUSTED',
  CONFIG_INVALID: 'GATEWAY_CONFIG_INVALID',
  /** The MCP client could not be asked, or its answer broke the form's own schema. */
  CLIENT_ASK_FAILED: 'GATEWAY_CLIENT_ASK_FAILED',
} as const;

export type GatewayErrorCode = (typeof GatewayErrorCode)[keyof typeof GatewayErrorCode];

export class GatewayError extends ClatError<GatewayErrorCode> {
  constructor(code: GatewayErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, options);
    this.name = 'GatewayError';
  }
}
