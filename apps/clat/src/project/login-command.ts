/** The `clat mcp login` line shown for an entry that needs a login. @module */

/** The command a person runs to log in to `name` (shown in /mcp, errors and headless runs). */
export function loginCommand(name: string): string {
  return `clat mcp login ${/^[\w.@-]+$/.test(name) ? name : JSON.stringify(name)}`;
}
