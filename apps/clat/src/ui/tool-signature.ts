/**
 * A tool's input schema as something a person can type: a one-line signature
 * (`path: string, recursive?: boolean = false`) and a detailed view with each parameter's type,
 * default and description, and the tool's full description wrapped. Schema text comes from
 * plugins, so every string goes through the terminal sanitiser.
 * @module
 */
import { sanitizeTerminalLine, sanitizeTerminalText, type ToolDefinition } from '@clat/kernel';
import { columnsOf } from './columns.js';

type Schema = Record<string, unknown>;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A short type for one property schema: `string`, `number[]`, `"a" | "b"`, `object`. */
export function typeOf(schema: unknown, depth = 0): string {
  if (!isSchema(schema) || depth > 3) return 'any';
  if (Array.isArray(schema.enum)) {
    return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  }
  if ('const' in schema) return JSON.stringify(schema.const);
  const union = (schema.anyOf ?? schema.oneOf) as unknown;
  if (Array.isArray(union)) return union.map((item) => typeOf(item, depth + 1)).join(' | ');
  const type = schema.type;
  if (Array.isArray(type)) return type.map((item) => String(item)).join(' | ');
  if (type === 'array') {
    const items = typeOf(schema.items, depth + 1);
    return items.includes(' ') ? `(${items})[]` : `${items}[]`;
  }
  if (typeof type === 'string') return type;
  if (isSchema(schema.properties)) return 'object';
  return 'any';
}

export interface Parameter {
  name: string;
  type: string;
  required: boolean;
  default?: string;
  description?: string;
}

export function parametersOf(inputSchema: unknown): Parameter[] {
  if (!isSchema(inputSchema) || !isSchema(inputSchema.properties)) return [];
  const required = new Set(
    Array.isArray(inputSchema.required) ? inputSchema.required.map(String) : [],
  );
  return Object.entries(inputSchema.properties).map(([name, schema]) => {
    const property = isSchema(schema) ? schema : {};
    return {
      name,
      type: typeOf(property),
      required: required.has(name),
      ...('default' in property ? { default: JSON.stringify(property.default) } : {}),
      ...(typeof property.description === 'string' ? { description: property.description } : {}),
    };
  });
}

/** `name(path: string, recursive?: boolean = false)`, sanitised, on one line. */
export function signatureOf(tool: ToolDefinition): string {
  const params = parametersOf(tool.inputSchema).map(
    (param) =>
      `${param.name}${param.required ? '' : '?'}: ${param.type}${param.default === undefined ? '' : ` = ${param.default}`}`,
  );
  return sanitizeTerminalLine(`${tool.name}(${params.join(', ')})`);
}

/**
 * Greedy word wrap of sanitised text at `width` terminal columns, each line prefixed by `indent`;
 * a word longer than a line (a URL, CJK text without spaces) is broken across lines.
 */
export function wrap(text: string, width: number, indent: string): string[] {
  const out: string[] = [];
  const room = Math.max(10, width - indent.length);
  for (const paragraph of sanitizeTerminalText(text).split('\n')) {
    let line = '';
    let used = 0;
    for (const whole of paragraph.split(/\s+/).filter((part) => part !== '')) {
      for (const word of brokenWord(whole, room)) {
        const columns = columnsOf(word);
        if (line !== '' && used + 1 + columns > room) {
          out.push(`${indent}${line}`);
          line = word;
          used = columns;
        } else {
          line = line === '' ? word : `${line} ${word}`;
          used = line === word ? columns : used + 1 + columns;
        }
      }
    }
    out.push(`${indent}${line}`);
  }
  while (out.length > 0 && out[out.length - 1]?.trim() === '') out.pop();
  return out;
}

/** `word` in pieces of at most `room` columns (one piece when it fits). */
function brokenWord(word: string, room: number): string[] {
  if (columnsOf(word) <= room) return [word];
  const pieces: string[] = [];
  let piece = '';
  let used = 0;
  for (const char of word) {
    const columns = columnsOf(char);
    if (used + columns > room) {
      pieces.push(piece);
      piece = '';
      used = 0;
    }
    piece += char;
    used += columns;
  }
  if (piece !== '') pieces.push(piece);
  return pieces;
}

function sourceOf(tool: ToolDefinition): string {
  return tool.source.id === '' ? tool.source.kind : `${tool.source.kind}:${tool.source.id}`;
}

/** The detailed view of `clat tools <server|tool>` and `/tools <name>`. */
export function formatToolDetails(tools: readonly ToolDefinition[], width = 100): string {
  const blocks = tools.map((tool) => {
    const lines = [
      signatureOf(tool),
      `  effect: ${tool.effect}   source: ${sanitizeTerminalLine(sourceOf(tool))}`,
    ];
    if (tool.description.trim() !== '') lines.push(...wrap(tool.description, width, '  '));
    const params = parametersOf(tool.inputSchema);
    if (params.length > 0) {
      lines.push('  arguments:');
      for (const param of params) {
        const head = `    ${param.name}${param.required ? ' (required)' : ''}: ${param.type}${param.default === undefined ? '' : ` = ${param.default}`}`;
        lines.push(sanitizeTerminalLine(head));
        if (param.description !== undefined)
          lines.push(...wrap(param.description, width, '      '));
      }
    }
    return lines.join('\n');
  });
  return `${blocks.join('\n\n')}\n`;
}
