import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * Suites that start a whole platform take the default ports (root README, "Services and ports") (8081..8088 public, 9081..9088
 * internal) plus a fixed PORT_OFFSET, and vitest runs suites in parallel: two offsets whose port
 * ranges meet make both suites flaky. Every port must also stay below 32768, where Linux hands out
 * ephemeral ports to outgoing connections.
 */
const root = fileURLToPath(new URL("../../", import.meta.url));
/** `const PORT_OFFSET = N`, also with a name before it (`BENCH_`, `FIRST_REPLICA_`): a file may start several platforms. */
const OFFSET = /const (?:[A-Z]+_)*PORT_OFFSET = (?:Number\(env\.BENCH_PORT_OFFSET \?\? )?([\d_]+)/g;
const EPHEMERAL_START = 32_768;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

const portsOf = (offset: number) => [
  ...Array.from({ length: 8 }, (_, i) => 8081 + i + offset),
  ...Array.from({ length: 8 }, (_, i) => 9081 + i + offset),
];

describe("fixed port offsets of platform-starting suites", () => {
  const offsets = [
    ...sourceFiles(join(root, "test")),
    ...sourceFiles(join(root, "hack/bench")),
    ...sourceFiles(join(root, "cli/test")),
  ].flatMap((file) => {
    return [...readFileSync(file, "utf8").matchAll(OFFSET)].map((match) => ({
      file: `${relative(root, file)} (${match[1]})`,
      offset: Number(match[1]!.replace(/_/g, "")),
    }));
  });

  it("finds the suites", () => {
    expect(offsets.length).toBeGreaterThan(10);
  });

  it("never share a port, and stay below the ephemeral range", () => {
    const owner = new Map<number, string>();
    const clashes: string[] = [];
    for (const { file, offset } of offsets) {
      for (const port of portsOf(offset)) {
        const other = owner.get(port);
        if (other && other !== file) clashes.push(`${port}: ${other} and ${file}`);
        owner.set(port, file);
        if (port >= EPHEMERAL_START) clashes.push(`${port} (${file}) is in the ephemeral range`);
      }
    }
    expect(clashes).toEqual([]);
  });
});
