/**
 * Argument bounds and defaults of the native tools (the original CLAT's tool table). Shared
 * limits (tool result size, grace periods) come from the kernel's LIMITS.
 * @module
 */
const KiB = 1024;
const MiB = 1024 * KiB;

export const NATIVE_LIMITS = {
  listMaxDepth: 8,
  listDefaultDepth: 2,
  listMaxEntries: 2000,
  listDefaultEntries: 200,
  readMaxBytes: 1 * MiB,
  readDefaultBytes: 64 * KiB,
  /** write_file content and the file edit_file may touch. */
  writeMaxBytes: 1 * MiB,
  searchMaxFilters: 32,
  searchDefaultResults: 100,
  searchMaxResults: 1000,
  /** Files larger than this are skipped by search. */
  searchMaxFileBytes: 4 * MiB,
  /** Time a regular expression may spend on one file before the search fails. */
  searchRegexFileMs: 5_000,
  /** Characters of one matched line shown in a search result. */
  searchLineChars: 500,
  commandMaxBytes: 64 * KiB,
  commandDefaultTimeoutSeconds: 120,
  commandMaxTimeoutSeconds: 600,
  /** Bytes kept of each of stdout and stderr (head and tail halves). */
  commandOutputBytes: 32 * KiB,
  /** Bytes sniffed for a NUL to call a file binary. */
  binarySniffBytes: 8 * KiB,
  askMaxOptions: 16,
  /** ask_user without custom answers: re-asks after an answer that is none of its options. */
  askInvalidRetries: 2,
} as const;

/** Directory names list_files and search never descend into. */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set([
  '.git',
  '.hg',
  '.svn',
  '.cache',
  '.next',
  '.turbo',
  'target',
  'node_modules',
  'dist',
  'build',
  'coverage',
]);
