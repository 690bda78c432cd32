/** Bounds of package trees, containers and the store (spec: clat-original section 10). @module */
import { LIMITS } from '@clat/kernel';

const KiB = 1024;
const MiB = 1024 * KiB;

export const PACKAGE_LIMITS = {
  /** Directory depth of a package tree. */
  treeDepth: 32,
  /**
   * Files in one package tree. Sized for real npm dependency trees (the closure of
   * `@modelcontextprotocol/server-memory` alone is ~3,700 files; the original 4,096 did not fit
   * servers with a few more dependencies).
   */
  treeFiles: 32_768,
  /** One file of a package tree. */
  fileBytes: 256 * MiB,
  /** All files of a package tree. */
  treeBytes: 512 * MiB,
  /** Bytes of one relative path. */
  pathBytes: 4096,
  /** registry.json. */
  registryBytes: 4 * MiB,
  /** Plugin configuration stored in the registry. */
  configBytes: LIMITS.pluginConfigBytes,
  /** A `--config-file`. */
  configFileBytes: LIMITS.pluginConfigBytes,
  /** The JSON header of a `.clatpkg` container (about 160 bytes per file at the file cap). */
  containerHeaderBytes: 8 * MiB,
} as const;
