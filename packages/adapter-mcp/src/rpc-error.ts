/**
 * JSON-RPC errors a server-request handler answers with: {@link RpcError} to choose the code, and
 * the containment of any other failure (catch-alls become -32603).
 * @module
 */
import { ClatError, errorMessage } from '@clat/kernel';
import { isMcpError, McpErrorCode } from './errors.js';
import { JsonRpcErrorCode } from './transport.js';

/** Thrown by a server-request handler to answer with a specific JSON-RPC error. */
export class RpcError extends ClatError<typeof McpErrorCode.MCP_REQUEST_REFUSED> {
  /** The JSON-RPC error code the answer carries. */
  readonly rpcCode: number;
  readonly rpcData: unknown;

  constructor(rpcCode: number, message: string, rpcData?: unknown) {
    super(McpErrorCode.MCP_REQUEST_REFUSED, message);
    this.name = 'RpcError';
    this.rpcCode = rpcCode;
    this.rpcData = rpcData;
  }
}

/** Contains any handler failure as a JSON-RPC error object (catch-alls become -32603). */
export function toRpcErrorObject(
  error: unknown,
  method: string,
): { code: number; message: string; data?: unknown } {
  if (error instanceof RpcError) {
    return {
      code: error.rpcCode,
      message: error.message,
      ...(error.rpcData === undefined ? {} : { data: error.rpcData }),
    };
  }
  if (isMcpError(error) && error.code === McpErrorCode.MCP_CANCELLED) {
    return { code: JsonRpcErrorCode.SERVER_ERROR, message: error.message };
  }
  return {
    code: JsonRpcErrorCode.INTERNAL_ERROR,
    message: `CLAT failed to handle ${method}: ${errorMessage(error)}`,
  };
}
