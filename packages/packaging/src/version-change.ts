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

/**
 * Why `version` is no semantic version (what npm and MCP Bundles take, and what tells an update
 * from a downgrade), with the version it was likely meant to be; undefined for a valid one. For
 * the author's `clat plugin pack`: installed packages keep free-text versions.
 */
export function semverProblem(version: string): string | undefined {
  if (semver.valid(version) !== null) return undefined;
  const meant = semver.coerce(version)?.version;
  const hint = meant === undefined ? 'for example "0.1.0"' : `did you mean "${meant}"?`;
  return `is not a semantic version (MAJOR.MINOR.PATCH, as npm and MCP Bundles take it), which tells an update from a downgrade; ${hint}`;
}
