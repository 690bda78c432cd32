/** The `WWW-Authenticate` challenge of a 401 or 403 from a protected MCP server. @module */
import { processRevocationResponse, WWWAuthenticateChallengeError } from 'oauth4webapi';

export interface AuthChallenge {
  /** `bearer` or `dpop`, lower-cased. */
  scheme: string;
  resourceMetadata?: string;
  scope?: string;
  error?: string;
}

/**
 * Parses a `WWW-Authenticate` header with oauth4webapi's RFC 7235 parser. The library exposes it
 * only through its response processors, so a synthetic 401 goes through one that checks
 * challenges first.
 */
export async function parseAuthChallenge(
  header: string | null | undefined,
): Promise<AuthChallenge | undefined> {
  if (header === null || header === undefined || header.trim() === '') return undefined;
  try {
    await processRevocationResponse(
      new Response(null, { status: 401, headers: { 'www-authenticate': header } }),
    );
  } catch (error) {
    if (!(error instanceof WWWAuthenticateChallengeError)) return undefined;
    const found = error.cause.find((c) => c.scheme === 'bearer' || c.scheme === 'dpop');
    if (found === undefined) return undefined;
    const out: AuthChallenge = { scheme: found.scheme };
    const { resource_metadata, scope, error: code } = found.parameters;
    if (typeof resource_metadata === 'string') out.resourceMetadata = resource_metadata;
    if (typeof scope === 'string') out.scope = scope;
    if (typeof code === 'string') out.error = code;
    return out;
  }
  return undefined;
}
