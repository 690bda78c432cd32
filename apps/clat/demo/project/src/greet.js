// A file for the demo's list_files and search steps.
export function greet(name) {
  return `hello, ${name}`;
}
