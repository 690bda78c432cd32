import { createHash } from 'node:crypto';

/** Lowercase hex SHA-256 of `bytes`. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Normalizes a pinned digest: optional `sha256:` prefix, any case. Undefined when malformed. */
export function normalizeSha256(value: string): string | undefined {
  const bare = value
    .trim()
    .toLowerCase()
    .replace(/^sha256:/, '');
  return /^[0-9a-f]{64}$/.test(bare) ? bare : undefined;
}
