/** Files every scaffold shares: the pure tool logic, its unit test, tsconfig, .gitignore. @module */

export type ScaffoldFiles = Record<string, string>;

export const COUNT_WORDS_TS = `/** Counts the words of a text: runs of non-space characters. Pure, so it is easy to test. */
export function countWords(text: string): number {
  return text.split(/\\s+/).filter((word) => word !== '').length;
}
`;

export const COUNT_WORDS_TEST_TS = `import { describe, expect, it } from 'vitest';
import { countWords } from './count-words.js';

describe('countWords', () => {
  it('counts runs of non-space characters', () => {
    expect(countWords('one two  three')).toBe(3);
    expect(countWords('  ')).toBe(0);
    expect(countWords('line\\nbreak\\ttab')).toBe(3);
  });
});
`;

export const TSCONFIG_JSON = `${JSON.stringify(
  {
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
    },
    include: ['src'],
  },
  null,
  2,
)}\n`;

export const GITIGNORE = 'node_modules/\ndist/\n';

/** package.json text with two-space indentation. */
export function packageJson(value: Record<string, unknown>): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
