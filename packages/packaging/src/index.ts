/**
 * @clat/packaging: manifest inspection, the `clat-package-tree-v1` digest, `.clatpkg` containers
 * and the transactional plugin store behind `clat plugin`.
 * @module
 */
export {
  CLATPKG_MAGIC,
  type PackResult,
  packPackage,
  readContainerHeader,
  unpackContainer,
} from './clatpkg.js';
export { compileConfigSchema, configSchemaProblem, userConfigProblem } from './config-schema.js';
export { type AskConfigValue, applyConfigValues } from './config-values.js';
export {
  isPackagingError,
  PackagingError,
  PackagingErrorCode,
  type PackagingErrorOptions,
} from './errors.js';
export {
  capabilityExpansion,
  type InspectedPackage,
  inspectPackage,
  type PackageTrust,
  parseConfigJson,
  readConfigFile,
  validateConfig,
} from './inspect.js';
export {
  type LaunchVars,
  sensitiveArgKeys,
  substituteLaunchArgs,
  substituteLaunchValue,
} from './launch-vars.js';
export { PACKAGE_LIMITS } from './limits.js';
export type { ListedArtifactSource } from './listed-source.js';
export {
  isMcpbSource,
  MCPB_MANIFEST,
  type McpbInfo,
  type StagedMcpbBundle,
  stageMcpbBundle,
} from './mcpb-source.js';
export {
  environmentNames,
  NPM_SPEC_PREFIX,
  type NpmSpec,
  npmPackageId,
  parseNpmSpec,
  requiredEnvironment,
  type StagedNpmPackage,
  type StageNpmOptions,
  stageNpmPackage,
} from './npm-source.js';
export { type PackageStoreSourceOptions, packageStoreSource } from './package-store-source.js';
export { removePluginData } from './plugin-data.js';
export { SECRETS_DIR } from './plugin-secrets.js';
export { PluginStore, STORE_DIR } from './plugin-store.js';
export {
  type Activation,
  type ArtifactRecord,
  type ArtifactSource,
  activeArtifact,
  type PackageRecord,
  parseRegistry,
  REGISTRY_FILE,
  type Registry,
  RegistrySchema,
} from './registry.js';
export {
  type InstalledComponent,
  type InstalledEntries,
  type InstalledPackageIssue,
  type InstalledPackageNote,
  type InstalledPrompt,
  installedServerEntries,
  pluginDataDir,
} from './server-entries.js';
export {
  contentDigest,
  PUBLISHER_FILE,
  type Publisher,
  parseMinisignPublicKey,
  SIGNATURE_FILE,
  signingMessage,
  verifyMinisign,
} from './signature.js';
export { type StampResult, stampEntryDigest } from './stamp.js';
export { trustLabel } from './store-list.js';
export { STORE_BUSY_MESSAGE } from './store-lock.js';
export type {
  ActivationResult,
  CapabilityRequest,
  InstallOptions,
  PluginListEntry,
  PluginSettings,
  PluginStoreOptions,
  RepairResult,
  StoreLease,
  VerifiedArtifact,
} from './store-types.js';
export {
  comparePaths,
  hashRegularFile,
  type PackageTree,
  readPackageTree,
  TREE_DIGEST_DOMAIN,
  type TreeFile,
  treeDigest,
} from './tree.js';
export { semverProblem, type VersionChange, versionChange } from './version-change.js';
