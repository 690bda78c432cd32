/** Which configured values count as secrets for redaction. @module */
import type { Redactor } from '@clat/kernel';
import type { MountEntry } from './server-connector.js';

/**
 * Adds an entry's secrets to `redactor`: every HTTP header value and every configured env value
 * (a configured value is there because the server needs it, and its name says nothing reliable).
 */
export function addEntrySecrets(redactor: Redactor, entry: MountEntry): void {
  if (entry.transport === 'http') redactor.addHeaders(entry.headers);
  if (entry.transport !== 'stdio') return;
  for (const value of Object.values(entry.env ?? {})) redactor.add(value);
}
