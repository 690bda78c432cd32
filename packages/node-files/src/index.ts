/**
 * @clat/node-files: whole-file writes for CLAT's Node hosts. A file is created exclusively (never
 * through a planted link), replaced or created atomically through an unpredictably named
 * temporary sibling, fsynced, and no partial file outlives a failure. Modes are the caller's.
 * @module
 */
export { createFileAtomic } from './atomic-create.js';
export {
  /** @public the options parameter of writeFileAtomic (README "Exports") */
  type AtomicWriteOptions,
  writeFileAtomic,
} from './atomic-write.js';
export { fsyncDirectory } from './directory-sync.js';
export {
  /** @public the holder withFileLock reports when a wait gives up (README "Exports") */
  type FileLockBusy,
  /** @public what withFileLock's work gets (README "Exports") */
  type FileLockHold,
  /** @public the options parameter of withFileLock (README "Exports") */
  type FileLockOptions,
  lockHolderPid,
  tryFileLock,
  withFileLock,
} from './file-lock.js';
export {
  /** @public the data parameter of every writer (README "Exports") */
  type FileData,
  /** @public the options parameter of writeNewFile and createFileAtomic (README "Exports") */
  type NewFileOptions,
  writeNewFile,
} from './new-file.js';
export { readRefusal } from './read-refusal.js';
export { isAbandonedTempFileOf, isTempFileOf, tempFileTarget } from './temp-name.js';
export { whyNotWritable } from './writable.js';
