/**
 * Text as one word of a POSIX shell, for the commands a message tells a person to paste into the
 * shell they ran CLAT in (a login, an install, a project directory). It quotes for the shell
 * only: the command is still shown through the terminal sanitiser like any other text.
 * @module
 */

/**
 * `text` bare when it is plain (`.`, `./x.clatpkg`, `a/b`, `docs`), else single-quoted (`'my dir'`,
 * `'a$b'`, `''`): inside single quotes a POSIX shell expands nothing, so only `'` needs escaping.
 */
export function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
