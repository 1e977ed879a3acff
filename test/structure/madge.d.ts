/** The part of madge's API (no types of its own) that test/structure/type-cycles.test.ts uses. */
declare module "madge" {
  interface MadgeResult {
    circular(): string[][];
  }
  interface MadgeConfig {
    fileExtensions?: string[];
    tsConfig?: string;
    detectiveOptions?: { ts?: { skipTypeImports?: boolean } };
  }
  export default function madge(path: string, config?: MadgeConfig): Promise<MadgeResult>;
}
