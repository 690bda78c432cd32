/// <reference path="./interfaces/clat-plugin-config.d.ts" />
/// <reference path="./interfaces/clat-plugin-elicitation.d.ts" />
/// <reference path="./interfaces/clat-plugin-host.d.ts" />
/// <reference path="./interfaces/clat-plugin-sampling.d.ts" />
/// <reference path="./interfaces/clat-plugin-tools.d.ts" />
/// <reference path="./interfaces/clat-plugin-types.d.ts" />
declare module 'clat:plugin/plugin@0.1.0' {
  export type * as ClatPluginConfig010 from 'clat:plugin/config@0.1.0'; // import clat:plugin/config@0.1.0
  export type * as ClatPluginElicitation010 from 'clat:plugin/elicitation@0.1.0'; // import clat:plugin/elicitation@0.1.0
  export type * as ClatPluginHost010 from 'clat:plugin/host@0.1.0'; // import clat:plugin/host@0.1.0
  export type * as ClatPluginSampling010 from 'clat:plugin/sampling@0.1.0'; // import clat:plugin/sampling@0.1.0
  export type * as ClatPluginTypes010 from 'clat:plugin/types@0.1.0'; // import clat:plugin/types@0.1.0
  export * as tools from 'clat:plugin/tools@0.1.0'; // export clat:plugin/tools@0.1.0
}
