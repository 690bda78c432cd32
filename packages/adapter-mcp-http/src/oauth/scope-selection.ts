/** Which scopes to request: challenge, else PRM `scopes_supported`, else config, else none. @module */
import type { AuthorizationServer } from 'oauth4webapi';

export function splitScope(scope: string | undefined): string[] {
  return scope === undefined ? [] : scope.split(/\s+/).filter((s) => s !== '');
}

/** Order-preserving union (step-up: previously requested plus challenged). */
export function scopeUnion(...lists: string[][]): string[] {
  return [...new Set(lists.flat())];
}

export interface ScopeInputs {
  challenged: string | undefined;
  scopesSupported: string[] | undefined;
  configured: string[] | undefined;
  /** Scopes remembered from an earlier step-up. */
  remembered: string[] | undefined;
}

/** The scope list for an authorization request (empty means: omit `scope`). */
export function selectScopes(inputs: ScopeInputs): string[] {
  const challenged = splitScope(inputs.challenged);
  const base =
    challenged.length > 0
      ? challenged
      : (inputs.scopesSupported ?? []).length > 0
        ? (inputs.scopesSupported ?? [])
        : (inputs.configured ?? []);
  return scopeUnion(inputs.remembered ?? [], base);
}

/**
 * Adds `offline_access` only when the AS lists it and can issue refresh tokens; servers never put
 * it in PRM or challenges.
 */
export function withOfflineAccess(scopes: string[], as: AuthorizationServer): string[] {
  const supported = as.scopes_supported ?? [];
  const grants = as.grant_types_supported;
  const canRefresh = grants === undefined || grants.includes('refresh_token');
  if (!supported.includes('offline_access') || !canRefresh || scopes.includes('offline_access'))
    return scopes;
  return [...scopes, 'offline_access'];
}
