/** Errors of clat-gateway: one class, an `as const` code table. @module */
import { ClatError } from '@clat/kernel';

export const GatewayErrorCode = {
  USAGE: 'GATEWAY_USAGE',
  PROJECT_UNTRUSTED: 'GATEWAY_PROJECT_UNTRUSTED',
  CONFIG_INVALID: 'GATEWAY_CONFIG_INVALID',
} as const;

export type GatewayErrorCode = (typeof GatewayErrorCode)[keyof typeof GatewayErrorCode];

export class GatewayError extends ClatError<GatewayErrorCode> {
  constructor(code: GatewayErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, options);
    this.name = 'GatewayError';
  }
}
