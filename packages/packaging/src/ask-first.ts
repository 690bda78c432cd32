/**
 * The questions a change may ask a person (grant `tools`? a required setting?), asked before the
 * store lease is taken. Asked under it, a person reading the capability screen or fetching an
 * API key kept every other `clat plugin` command, in any terminal, waiting on the lease and then
 * failing with STORE_BUSY. The answers become plain options (`yes`, `configValues`) for the
 * change under the lease, which checks everything again against the registry as it then is.
 * @module
 */
import type { PluginManifest } from '@clat/kernel';
import { mergeConfig, secretsBefore } from './activation-config.js';
import { confirmCapabilities } from './capability-consent.js';
import { applyConfigValues } from './config-values.js';
import { capabilityExpansion } from './inspect.js';
import type { PackageRecord } from './registry.js';
import type { InstallOptions } from './store-types.js';

export interface AskFirstContext {
  clatHome: string;
  manifest: PluginManifest;
  /** The package as installed when the questions are asked (none: a fresh install). */
  existing: PackageRecord | undefined;
  /** What the question about `tools` says is happening; `configure` asks none. */
  mode: 'install' | 'update' | 'configure';
}

/**
 * `options` with its questions answered: a granted `tools` becomes `yes`, each setting answered
 * joins `configValues`, and `confirm`/`askConfig` are dropped. A refused grant throws as under the
 * lease. A setting the answers leave invalid is left for the change itself to report.
 */
export async function answerFirst<T extends InstallOptions>(
  context: AskFirstContext,
  options: T,
): Promise<T> {
  const { manifest, existing, mode } = context;
  let yes = options.yes;
  if (mode !== 'configure' && options.acceptCapabilities !== true && yes !== true) {
    const expansion = capabilityExpansion(
      existing?.active.acceptedCapabilities,
      manifest.capabilities,
    );
    if (expansion.length > 0 && options.confirm !== undefined) {
      await confirmCapabilities(mode, manifest, expansion, options);
      yes = true;
    }
  }
  let configValues = options.configValues;
  const ask = options.askConfig;
  if (ask !== undefined) {
    const answers: Record<string, string> = {};
    const secrets =
      existing === undefined
        ? {}
        : // Unreadable: asked as if it held none; the change under the lease says what is missing.
          (await secretsBefore(context.clatHome, manifest.id, existing.active, manifest)).values;
    const current =
      options.config !== undefined ? options.config : mergeConfig(existing?.active.config, secrets);
    await applyConfigValues(manifest, current, options.configValues ?? {}, async (key, field) => {
      const answer = await ask(key, field);
      if (answer !== undefined && answer !== '') answers[key] = answer;
      return answer;
    }).catch(() => undefined);
    if (Object.keys(answers).length > 0) configValues = { ...options.configValues, ...answers };
  }
  const { confirm: _asked, askConfig: _answered, ...rest } = options;
  return {
    ...rest,
    ...(yes === undefined ? {} : { yes }),
    ...(configValues === undefined ? {} : { configValues }),
  } as T;
}
