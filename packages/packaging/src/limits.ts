/** Bounds of package trees, containers and the store (spec: clat-original section 10). @module */
import { LIMITS } from '@clat/kernel';

const KiB = 1024;
const MiB = 1024 * KiB;

export const PACKAGE_LIMITS = {
  /** Directory depth of a package tree. */
  treeDepth: 32,
  /** Files in one package tree. */
  treeFiles: 4096,
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
  /** The JSON header of a `.clatpkg` container. */
  containerHeaderBytes: 1 * MiB,
} as const;
