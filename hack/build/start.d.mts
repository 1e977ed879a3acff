/** Types of start.mjs (plain JavaScript: it runs before anything is compiled). */
export function sourceFingerprint(root: string): string;
export function ensureRuntimeTree(root: string): string;
