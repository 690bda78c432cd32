/** Types for vitest-shared.js (plain JS so vitest configs load it without a build). */
export declare const sourceConditions: {
  resolve: { conditions: string[] };
  ssr: { resolve: { conditions: string[]; externalConditions: string[] } };
};
