/**
 * Arguments of a prompt as a person types them: `key=value` for a declared argument, anything
 * else positional in the prompt's declared order. Every value is a string (prompt arguments are
 * strings on the wire); required arguments are checked before the server is asked.
 * @module
 */
import type { CatalogPrompt } from '@clat/kernel';
import { CliError, CliErrorCode } from '../errors.js';

function usage(message: string): CliError {
  return new CliError(CliErrorCode.CLI_USAGE, message);
}

/**
 * Splits a typed line into words: whitespace separates, '…' and "…" group (quotes may sit inside a
 * word, as in `city="New York"`), a backslash escapes the next character outside single quotes.
 */
export function splitWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let index = 0; index < line.length; index++) {
    const char = line[index] as string;
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
      else if (char === '\\' && quote === '"' && index + 1 < line.length) word += line[++index];
      else word += char;
      continue;
    }
    if (/\s/.test(char)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      continue;
    }
    inWord = true;
    if (char === '"' || char === "'") quote = char;
    else if (char === '\\' && index + 1 < line.length) word += line[++index];
    else word += char;
  }
  if (quote !== undefined) throw usage(`unterminated ${quote} quote in ${JSON.stringify(line)}`);
  if (inWord) words.push(word);
  return words;
}

/** Binds typed words to the prompt's arguments; throws a usage error naming what is wrong. */
export function bindPromptArguments(
  prompt: CatalogPrompt,
  words: readonly string[],
): Record<string, string> {
  const label = JSON.stringify(prompt.name);
  const declared = prompt.arguments.map((argument) => argument.name);
  // Without a prototype: an argument named `__proto__` is an own property like any other.
  const args: Record<string, string> = Object.create(null);
  const positional: string[] = [];
  for (const word of words) {
    const equals = word.indexOf('=');
    const key = equals > 0 ? word.slice(0, equals) : undefined;
    if (key !== undefined && declared.includes(key)) {
      if (Object.hasOwn(args, key))
        throw usage(`argument ${JSON.stringify(key)} of prompt ${label} is given twice`);
      args[key] = word.slice(equals + 1);
    } else if (key !== undefined && /^[A-Za-z_][\w.-]*$/.test(key)) {
      // A mistyped name (`cty=Paris`) would otherwise fill the next argument with "cty=Paris".
      const named =
        declared[0] === undefined
          ? ''
          : `; a value with "=" is given named: ${declared[0]}=${word}`;
      throw usage(
        declared.length === 0
          ? `prompt ${label} takes no arguments; got ${JSON.stringify(word)}`
          : `prompt ${label} has no argument ${JSON.stringify(key)} (its arguments: ${declared.join(', ')})${named}`,
      );
    } else {
      positional.push(word);
    }
  }
  const open = declared.filter((name) => !Object.hasOwn(args, name));
  if (positional.length > open.length) {
    const extra = positional[open.length] ?? '';
    throw usage(
      declared.length === 0
        ? `prompt ${label} takes no arguments; got ${JSON.stringify(extra)}`
        : `prompt ${label} takes ${declared.length} argument${declared.length === 1 ? '' : 's'} (${declared.join(', ')}); ${JSON.stringify(extra)} is one too many`,
    );
  }
  positional.forEach((value, index) => {
    args[open[index] as string] = value;
  });
  for (const argument of prompt.arguments) {
    if (argument.required && !Object.hasOwn(args, argument.name)) {
      throw usage(
        `prompt ${label} needs argument ${JSON.stringify(argument.name)}; give ${argument.name}=<value>, or values in the order ${declared.join(' ')}`,
      );
    }
  }
  return args;
}
