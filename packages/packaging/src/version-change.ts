/**
 * How an update moved a package's version, by semver (the `semver` package, which npm itself
 * uses, so `1.10.0` is newer than `1.9.0` and `1.0.0-beta.2` older than `1.0.0`). Manifest
 * versions are free text, so two that are not both semantic versions compare as `unknown`.
 * @module
 */
import semver from 'semver';

export type VersionChange = 'upgrade' | 'downgrade' | 'same' | 'unknown';

export function versionChange(from: string, to: string): VersionChange {
  const before = semver.valid(from);
  const after = semver.valid(to);
  if (before === null || after === null) return from === to ? 'same' : 'unknown';
  const order = semver.compare(after, before);
  return order > 0 ? 'upgrade' : order < 0 ? 'downgrade' : 'same';
}
