/** Duplicate object keys in a JSON text, which `JSON.parse` silently resolves last-wins. @module */

interface Frame {
  kind: 'object' | 'array';
  path: string;
  keys: Set<string>;
  expectKey: boolean;
  key: string;
  index: number;
}

function childPath(frame: Frame | undefined): string {
  if (frame === undefined) return '';
  if (frame.kind === 'array') return `${frame.path}[${frame.index}]`;
  return frame.path === '' ? frame.key : `${frame.path}.${frame.key}`;
}

/**
 * Dotted paths of every repeated key (`mcpServers.notes`), in order of appearance. `text` must
 * already be valid JSON (call it after `JSON.parse` succeeded).
 */
export function findDuplicateKeys(text: string): string[] {
  const duplicates: string[] = [];
  const stack: Frame[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    const top = stack.at(-1);
    if (char === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      if (top?.kind === 'object' && top.expectKey) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        top.key = key;
        top.expectKey = false;
        if (top.keys.has(key)) duplicates.push(childPath(top));
        top.keys.add(key);
      }
      i = end;
    } else if (char === '{' || char === '[') {
      const kind = char === '{' ? 'object' : 'array';
      stack.push({
        kind,
        path: childPath(top),
        keys: new Set(),
        expectKey: true,
        key: '',
        index: 0,
      });
    } else if (char === '}' || char === ']') {
      stack.pop();
    } else if (char === ',' && top !== undefined) {
      if (top.kind === 'object') top.expectKey = true;
      else top.index++;
    }
  }
  return duplicates;
}
