/**
 * Typed packaging errors. Every code is listed once here; messages are one sentence naming the
 * file or field at fault.
 * @module
 */

import { ClatError, clatErrorGuard } from '@clat/kernel';

export const PackagingErrorCode = {
  /** The manifest is missing, not a regular file, oversized or fails manifest v1 validation. */
  MANIFEST_INVALID: 'MANIFEST_INVALID',
  /** A tree entry is a symlink, device, FIFO, socket or other non-regular file. */
  TREE_SPECIAL_FILE: 'TREE_SPECIAL_FILE',
  /** A path escapes the package, is not UTF-8, or is too deep or too long. */
  TREE_PATH_INVALID: 'TREE_PATH_INVALID',
  /** Too many files, a file too large, or the tree too large in total. */
  TREE_TOO_LARGE: 'TREE_TOO_LARGE',
  /** A file changed while it was being read. */
  TREE_CHANGED: 'TREE_CHANGED',
  /** The entry is missing, not executable, or its digest differs from the manifest. */
  ENTRY_INVALID: 'ENTRY_INVALID',
  /** Package identity (id, version, tree digest or manifest) differs from what was expected. */
  IDENTITY_MISMATCH: 'IDENTITY_MISMATCH',
  /** Installed bytes no longer match their recorded tree digest. */
  ARTIFACT_TAMPERED: 'ARTIFACT_TAMPERED',
  /** Supplied plugin configuration is too large, not JSON, or fails the manifest configSchema. */
  CONFIG_INVALID: 'CONFIG_INVALID',
  /**
   * A package's secrets file exists but cannot be read (empty, cut short, permission denied), and
   * what was asked would need the sensitive values it held.
   */
  SECRETS_UNREADABLE: 'SECRETS_UNREADABLE',
  /** registry.json is malformed or breaks an invariant; the whole plugin runtime fails closed. */
  REGISTRY_INVALID: 'REGISTRY_INVALID',
  /**
   * registry.json is missing while the store holds packages, stored copies or secrets files:
   * plugins are disabled and nothing is pruned until it is restored or the store is moved aside.
   */
  REGISTRY_MISSING: 'REGISTRY_MISSING',
  /**
   * Another process holds the storage-root lease, or changed the package while this change was
   * prepared outside it (`InstallOptions.basedOn`): retry once it has finished.
   */
  STORE_BUSY: 'STORE_BUSY',
  /** `install` on an installed id, or `update`/`enable`/... on a missing one. */
  PACKAGE_STATE: 'PACKAGE_STATE',
  /** An update or install adds capabilities that were not accepted. */
  CAPABILITY_EXPANSION: 'CAPABILITY_EXPANSION',
  /** A `.clatpkg` container is malformed, truncated, has trailing data or a bad file digest. */
  CONTAINER_INVALID: 'CONTAINER_INVALID',
  /** An output path already exists or the input is empty. */
  OUTPUT_INVALID: 'OUTPUT_INVALID',
  /** An `npm:` source could not be resolved, fetched or installed by npm, or has no usable bin. */
  NPM_FAILED: 'NPM_FAILED',
  /** An MCPB bundle is malformed, unsupported (python) or incompatible with this host. */
  MCPB_INVALID: 'MCPB_INVALID',
  /** A publisher file or Minisign signature is missing its pair, malformed, or does not verify. */
  SIGNATURE_INVALID: 'SIGNATURE_INVALID',
} as const;

export type PackagingErrorCode = (typeof PackagingErrorCode)[keyof typeof PackagingErrorCode];

export interface PackagingErrorOptions {
  /** The file (absolute or package-relative) the error is about. */
  file?: string;
  data?: Record<string, unknown>;
  cause?: unknown;
}

/** A local packaging error with a string code from {@link PackagingErrorCode}. */
export class PackagingError extends ClatError<PackagingErrorCode> {
  readonly file: string | undefined;

  constructor(code: PackagingErrorCode, message: string, options: PackagingErrorOptions = {}) {
    super(code, message, { data: options.data, cause: options.cause });
    this.name = 'PackagingError';
    this.file = options.file;
  }
}

/** True for a PackagingError from any bundled copy of this package. */
export const isPackagingError = clatErrorGuard<PackagingError>('PackagingError');
