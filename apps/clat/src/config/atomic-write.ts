/** Atomic replacement of CLAT's own config files (mcp.json, trust.json). @module */
import { writeFileAtomic as writeAtomic } from '@clat/native-tools';
import { linkTarget } from './link-target.js';

/**
 * Replaces `file` with `text` so readers see the old or the new content, never a mix. The file is
 * always written with `mode`, 0600 by default (mcp.json and trust.json may hold secrets; an
 * existing 0644 file is tightened), and new directories 0700. Shares the temp + fsync + rename + directory-fsync routine
 * of the native `write_file` tool. When `file` is a symbolic link, the file it points to is
 * replaced and the link kept.
 */
export async function writeFileAtomic(file: string, text: string, mode = 0o600): Promise<void> {
  await writeAtomic(await linkTarget(file), text, { mode, dirMode: 0o700 });
}
