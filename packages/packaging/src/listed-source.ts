/**
 * An artifact's source as `list` shows it: the environment given with `--env` by name only (its
 * values are often keys), the server arguments and the registry URL with anything that looks
 * like a key or credentials redacted.
 * @module
 */
import { redactArgs, redactSecrets } from '@clat/kernel';
import type { ArtifactSource } from './registry.js';

/** {@link ArtifactSource} with `env` reduced to its variable names. */
export type ListedArtifactSource = Omit<ArtifactSource, 'env'> & { env?: string[] };

export function listedSource(source: ArtifactSource): ListedArtifactSource {
  const { env, args, ...rest } = source;
  return {
    ...rest,
    registry: redactSecrets(rest.registry),
    ...(env === undefined ? {} : { env: Object.keys(env) }),
    ...(args === undefined ? {} : { args: redactArgs(args) }),
  };
}
