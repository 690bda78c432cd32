/**
 * @clat/adapter-glm: the GLM Coding Plan pack, four provider-supplied MCP servers merged in
 * memory at project mount.
 * @module
 */
export {
  describeGlmPack,
  GLM_PACK_ORIGIN,
  GLM_PACK_SERVERS,
  GLM_VISION_KEY_ENV,
  GLM_VISION_MODE_ENV,
  type GlmPackMerge,
  type GlmPackServerName,
  type GlmPackStatus,
  type GlmPlatform,
  type GlmProviderDescriptor,
  glmPackServers,
  glmPackStatus,
  glmPlatformOf,
  type MergeGlmPackOptions,
  mergeGlmPack,
} from './glm-pack.js';
export { type GlmPackSourceOptions, glmPackSource } from './glm-pack-source.js';
