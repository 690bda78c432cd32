/** Atomic replacement of CLAT's own config files (mcp.json, trust.json). @module */
import { writeFileAtomic as writeAtomic } from '@clat/native-tools';

/**
 * Replaces `target` with `text` so readers see the old or the new content, never a mix. The file
 * is always written with `mode`, 0600 by default (mcp.json and trust.json may hold secrets; an
 * existing 0644 file is tightened), and new directories 0700. Shares the temp + fsync + rename +
 * directory-fsync routine of the native `write_file` tool. `target` is already resolved with
 * `linkTarget`, once, by the locked edit: it writes the file it locked, and the link is kept, even
 * if the link was re-pointed meanwhile.
 */
export async function replaceResolvedFile(
  target: string,
  text: string,
  mode = 0o600,
): Promise<void> {
  await writeAtomic(target, text, { mode, dirMode: 0o700 });
}
