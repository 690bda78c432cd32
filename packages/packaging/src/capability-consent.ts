/**
 * Consent to the capabilities a package adds: anything beyond `tools` needs an explicit grant,
 * `tools` alone may be confirmed by the person.
 * @module
 */
import type { PluginManifest } from '@clat/kernel';
import { PackagingError } from './errors.js';
import type { InstallOptions } from './store-types.js';

/**
 * Capabilities beyond `tools` need `acceptCapabilities`; a tools-only request is granted with
 * `yes` or a positive `confirm`.
 */
export async function confirmCapabilities(
  mode: 'install' | 'update',
  manifest: PluginManifest,
  expansion: string[],
  options: InstallOptions,
): Promise<void> {
  const verb = mode === 'install' ? 'requests' : 'adds';
  if (expansion.some((label) => label !== 'tools')) {
    throw new PackagingError(
      'CAPABILITY_EXPANSION',
      `${manifest.id} ${verb} capabilities ${expansion.join(', ')}; rerun with --accept-capabilities to grant them`,
      { data: { capabilities: expansion } },
    );
  }
  if (options.yes === true) return;
  if (options.confirm === undefined) {
    throw new PackagingError(
      'CAPABILITY_EXPANSION',
      `${manifest.id} ${verb} capability tools; rerun with --yes to grant it`,
      { data: { capabilities: expansion } },
    );
  }
  const granted = await options.confirm({
    id: manifest.id,
    version: manifest.version,
    capabilities: expansion,
  });
  if (!granted) {
    throw new PackagingError(
      'CAPABILITY_EXPANSION',
      `${manifest.id} was not ${mode === 'install' ? 'installed' : 'updated'}: capability tools was not granted`,
      { data: { capabilities: expansion } },
    );
  }
}
