/** Text as one shell word, for commands a person pastes into the shell they ran `clat` in. @module */

/** `text` bare when it is plain (`.`, `./x.clatpkg`, `a/b`), else single-quoted (`'my dir'`). */
export function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
