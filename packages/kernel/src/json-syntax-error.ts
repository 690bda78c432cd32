/**
 * Where JSON text stops being valid, told without quoting it. V8's `JSON.parse` message quotes
 * about ten characters either side of the error (`..."apiKey":sk-proj-Ab"...`), and the text is
 * often a config file holding keys or untrusted package data, so callers report this instead.
 * @module
 */

interface JsonSyntaxFailure {
  offset: number;
  reason: string;
}

const END = 'unexpected end of input';

function fail(text: string, offset: number, reason: string): JsonSyntaxFailure {
  return { offset, reason: offset >= text.length ? END : reason };
}

function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length) {
    const c = text[i];
    if (c !== ' ' && c !== '\t' && c !== '\n' && c !== '\r') break;
    i++;
  }
  return i;
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

function stringEnd(text: string, from: number): number | JsonSyntaxFailure {
  let i = from + 1;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '"') return i + 1;
    if (c.charCodeAt(0) < 0x20) return fail(text, i, 'control character in a string');
    if (c !== '\\') {
      i++;
      continue;
    }
    const escaped = text[i + 1];
    if (escaped === 'u') {
      if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
        return fail(text, i, 'invalid \\u escape in a string');
      }
      i += 6;
    } else if (escaped !== undefined && '"\\/bfnrt'.includes(escaped)) i += 2;
    else return fail(text, i, 'invalid escape in a string');
  }
  return fail(text, i, 'unterminated string');
}

function numberEnd(text: string, from: number): number | JsonSyntaxFailure {
  let i = from;
  if (text[i] === '-') i++;
  if (text[i] === '0') i++;
  else if (isDigit(text[i])) while (isDigit(text[i])) i++;
  else return fail(text, i, 'invalid number');
  if (text[i] === '.') {
    i++;
    if (!isDigit(text[i])) return fail(text, i, 'invalid number');
    while (isDigit(text[i])) i++;
  }
  if (text[i] === 'e' || text[i] === 'E') {
    i++;
    if (text[i] === '+' || text[i] === '-') i++;
    if (!isDigit(text[i])) return fail(text, i, 'invalid number');
    while (isDigit(text[i])) i++;
  }
  return i;
}

function scalarEnd(text: string, from: number): number | JsonSyntaxFailure {
  const c = text[from];
  if (c === '"') return stringEnd(text, from);
  if (c === '-' || isDigit(c)) return numberEnd(text, from);
  for (const literal of ['true', 'false', 'null']) {
    if (text.startsWith(literal, from)) return from + literal.length;
  }
  return fail(text, from, 'unexpected character');
}

/** A property name and its colon; returns where the value starts. */
function keyEnd(text: string, from: number): number | JsonSyntaxFailure {
  if (text[from] !== '"') return fail(text, from, 'expected a double-quoted property name');
  const end = stringEnd(text, from);
  if (typeof end !== 'number') return end;
  const colon = skipSpace(text, end);
  if (text[colon] !== ':') return fail(text, colon, "expected ':' after a property name");
  return skipSpace(text, colon + 1);
}

/** The first syntax error of `text` (iterative: deep nesting cannot exhaust the stack). */
function findJsonSyntaxError(text: string): JsonSyntaxFailure | undefined {
  const closers: string[] = [];
  let i = skipSpace(text, 0);
  for (;;) {
    // A value starts at i.
    const c = text[i];
    if (c === '{' || c === '[') {
      const closer = c === '{' ? '}' : ']';
      i = skipSpace(text, i + 1);
      if (text[i] === closer) i++;
      else {
        closers.push(closer);
        if (closer === '}') {
          const next = keyEnd(text, i);
          if (typeof next !== 'number') return next;
          i = next;
        }
        continue;
      }
    } else {
      const end = scalarEnd(text, i);
      if (typeof end !== 'number') return end;
      i = end;
    }
    // A value ended at i: close containers until one continues with a comma.
    for (;;) {
      i = skipSpace(text, i);
      const closer = closers.at(-1);
      if (closer === undefined) {
        return i < text.length ? fail(text, i, 'unexpected text after the JSON value') : undefined;
      }
      if (text[i] === closer) {
        closers.pop();
        i++;
        continue;
      }
      if (text[i] !== ',') return fail(text, i, `expected ',' or '${closer}'`);
      i = skipSpace(text, i + 1);
      if (closer === '}') {
        const next = keyEnd(text, i);
        if (typeof next !== 'number') return next;
        i = next;
      }
      break;
    }
  }
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * Describes why `text` is not valid JSON by reason and line:column only (`unexpected character at
 * line 3, column 12`), never quoting the text, for errors about files or values that may hold
 * secrets. Call it where `JSON.parse(text)` threw, instead of using that error's message.
 */
export function describeJsonSyntaxError(text: string): string {
  const failure = findJsonSyntaxError(text);
  if (failure === undefined) return 'not valid JSON';
  const { line, column } = lineColumn(text, failure.offset);
  return `${failure.reason} at line ${line}, column ${column}`;
}
