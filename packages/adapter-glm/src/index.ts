/**
 * @clat/adapter-glm: the GLM Coding Plan pack, four provider-supplied MCP servers merged in
 * memory at project mount.
 * @module
 */
export {
  describeGlmPack,
  /** @public the `origin` of the pack's entries, by which a host tells them apart */
  GLM_PACK_ORIGIN,
  /** @public what mergeGlmPack returns */
  type GlmPackMerge,
  /** @public an element of GlmPackMerge's `added`/`overridden` */
  type GlmPackServerName,
  /** @public GlmPackMerge's `status` */
  type GlmPackStatus,
  /** @public GlmPackStatus's `platform` */
  type GlmPlatform,
  type GlmProviderDescriptor,
  /** @public the options parameter of mergeGlmPack */
  type MergeGlmPackOptions,
  mergeGlmPack,
} from './glm-pack.js';
export {
  /** @public the parameter of glmPackSource */
  type GlmPackSourceOptions,
  glmPackSource,
} from './glm-pack-source.js';
