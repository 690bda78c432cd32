/**
 * Splits a session line (`/call <tool> text="hello world" limit=5`) into words the way a person
 * types them in a shell: whitespace separates, `'…'` and `"…"` group (quotes may start inside a
 * word, `text="a b"`), and a backslash escapes the next character outside single quotes. Nothing
 * is expanded: no variables, globs or operators, which a shell-parsing library would interpret.
 * @module
 */

/** The words of `line`, or a sentence naming the quote that was left open. */
export function splitWords(line: string): string[] | { unclosed: string } {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let at = 0; at < line.length; at++) {
    const char = line[at] as string;
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
      else if (char === '\\' && quote === '"' && (line[at + 1] === '"' || line[at + 1] === '\\')) {
        word += line[++at];
      } else word += char;
      continue;
    }
    if (char === "'" || char === '"') {
      quote = char;
      inWord = true;
    } else if (char === '\\' && at + 1 < line.length) {
      word += line[++at];
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += char;
      inWord = true;
    }
  }
  if (quote !== undefined) return { unclosed: quote };
  if (inWord) words.push(word);
  return words;
}
