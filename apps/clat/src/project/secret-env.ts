/** Which configured values count as secrets for redaction. @module */
import type { Redactor } from '@clat/kernel';
import type { MountEntry } from './server-connector.js';

const SECRET_NAME = /key|token|secret|passw|credential|auth|cookie|session/i;

/**
 * Adds an entry's secrets to `redactor`: every HTTP header value, and env values whose name looks
 * secret (`API_KEY`, `GITHUB_TOKEN`…). Plain env values (paths, ids) stay readable in /mcp.
 */
export function addEntrySecrets(redactor: Redactor, entry: MountEntry): void {
  if (entry.transport === 'http') redactor.addHeaders(entry.headers);
  if (entry.transport !== 'stdio') return;
  for (const [name, value] of Object.entries(entry.env ?? {})) {
    if (SECRET_NAME.test(name)) redactor.add(value);
  }
}
