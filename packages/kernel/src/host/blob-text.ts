/**
 * Text sent as a blob: servers base64-encode plain text too (server-everything's dynamic blob
 * resources are `text/plain`). Such a blob is read as text when its media type says text and its
 * bytes are UTF-8; anything else stays binary. One reading for what a person sees (the CLI's
 * resource reads and attachments) and what the model reads (`read_resource`).
 * @module
 */
import type { CatalogContent } from './catalog.js';

// `fatal`: a single invalid sequence means the bytes are not the text the type claims, and a
// replacement character per byte would be noise, not content.
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Media types whose bytes are text: `text/*`, JSON and XML (plain and `+json`/`+xml` suffixed). */
function isTextType(mimeType: string): boolean {
  const [essence = '', ...params] = mimeType.toLowerCase().split(';');
  // A declared charset other than UTF-8 (or its ASCII subset) is not ours to decode as UTF-8.
  for (const param of params) {
    const [name, value = ''] = param.split('=').map((part) => part.trim());
    if (name === 'charset' && !['utf-8', 'utf8', 'us-ascii'].includes(value.replace(/"/g, ''))) {
      return false;
    }
  }
  const type = essence.trim();
  return (
    type.startsWith('text/') ||
    /^application\/(?:json|xml|[\w.+-]+\+(?:json|xml))$/.test(type) ||
    type === 'application/yaml'
  );
}

/** The text of a blob whose type says text and whose bytes are UTF-8; otherwise undefined. */
export function blobText(content: Extract<CatalogContent, { kind: 'blob' }>): string | undefined {
  if (content.mimeType === undefined || !isTextType(content.mimeType)) return undefined;
  let text: string;
  try {
    // atob, not Buffer: the kernel runs on any JavaScript runtime.
    const binary = atob(content.blob.replace(/\s+/g, ''));
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    text = utf8.decode(bytes);
  } catch {
    return undefined;
  }
  // NUL is valid UTF-8 but no text file holds one: a mislabelled binary stays a placeholder.
  return text.includes('\u0000') ? undefined : text;
}
