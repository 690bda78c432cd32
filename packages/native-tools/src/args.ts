/**
 * Small argument readers with messages that name the field, shared by every native tool.
 * @module
 */
import type { JsonObject } from '@clat/kernel';
import { NativeToolError, NativeToolErrorCode } from './errors.js';

function bad(tool: string, message: string): NativeToolError {
  return new NativeToolError(NativeToolErrorCode.NATIVE_INVALID_ARGUMENTS, `${tool}: ${message}`);
}

/** Rejects fields the tool does not know, so typos fail loudly instead of being ignored. */
export function onlyKnown(tool: string, args: JsonObject, known: readonly string[]): void {
  const unknown = Object.keys(args).filter((key) => !known.includes(key));
  if (unknown.length > 0) {
    throw bad(
      tool,
      `unknown argument(s) ${unknown.map((k) => JSON.stringify(k)).join(', ')}; expected ${known.join(', ')}`,
    );
  }
}

export function requiredString(tool: string, args: JsonObject, name: string): string {
  const value = args[name];
  if (typeof value !== 'string') throw bad(tool, `"${name}" is required and must be a string`);
  return value;
}

export function optionalString(tool: string, args: JsonObject, name: string): string | undefined {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw bad(tool, `"${name}" must be a string`);
  return value;
}

export function optionalBoolean(
  tool: string,
  args: JsonObject,
  name: string,
  fallback: boolean,
): boolean {
  const value = args[name];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw bad(tool, `"${name}" must be true or false`);
  return value;
}

export function optionalInteger(
  tool: string,
  args: JsonObject,
  name: string,
  range: { min: number; max: number; fallback?: number },
): number | undefined {
  const value = args[name];
  if (value === undefined || value === null) return range.fallback;
  if (
    typeof value !== 'number' ||
    !Number.isInteger(value) ||
    value < range.min ||
    value > range.max
  ) {
    throw bad(
      tool,
      `"${name}" must be an integer from ${range.min} to ${range.max}, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

export function optionalEnum<T extends string>(
  tool: string,
  args: JsonObject,
  name: string,
  values: readonly T[],
  fallback: T,
): T {
  const value = args[name];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'string' || !(values as readonly string[]).includes(value)) {
    throw bad(tool, `"${name}" must be one of ${values.join(', ')}, got ${JSON.stringify(value)}`);
  }
  return value as T;
}

export function optionalStringList(
  tool: string,
  args: JsonObject,
  name: string,
  max: number,
): string[] {
  const value = args[name];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw bad(tool, `"${name}" must be a list of strings`);
  }
  if (value.length > max)
    throw bad(tool, `"${name}" has ${value.length} entries, over the limit of ${max}`);
  return value as string[];
}

export { bad as invalidArguments };
