export declare function buildPackage(
  outDir: string,
): Promise<{ dir: string; entry: string; sha256: string }>;
