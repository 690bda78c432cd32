/**
 * What an approver's answer means for the call: `allow` passes, `deny` is the user's refusal with
 * its reason, and anything else (a host approver returning `"yes"`, `undefined` or a typo) is
 * denied as what it is, not reported as a user's "no".
 * @module
 */

/** Undefined when `decision` allows; otherwise the reason the call is denied. */
export function approvalRefusal(decision: unknown): string | undefined {
  const outcome = (decision as { outcome?: unknown } | null | undefined)?.outcome;
  if (outcome === 'allow') return undefined;
  if (outcome === 'deny') {
    const reason = (decision as { reason?: unknown }).reason;
    return typeof reason === 'string' && reason !== '' ? reason : 'denied by the user';
  }
  const shown =
    outcome === undefined ? 'no outcome' : `outcome ${JSON.stringify(outcome)?.slice(0, 40)}`;
  return `the approver answered with ${shown}, not "allow" or "deny", so the call is denied`;
}
