import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ensureRuntimeTree, sourceFingerprint } from "../../hack/build/start.mjs";

/**
 * `npm start` (hack/build/start.mjs) compiles only when a source changed: what its fingerprint
 * covers, and that an existing tree for the current sources is used as is.
 */
const root = mkdtempSync(join(tmpdir(), "attesto-start-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, text: string) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

describe("npm start's compiled tree", () => {
  for (const path of [
    "services/ledger/src/main.ts",
    "services/ledger/package.json",
    "services/schema-registry/seeds/a.json",
    "operator/src/main.ts",
    "cli/src/main.ts",
    "hack/build/compile.ts",
  ])
    write(path, "1");

  it("fingerprints every runtime source, not tests, dependencies or builds", () => {
    const before = sourceFingerprint(root);
    for (const path of [
      "services/ledger/src/x.test.ts",
      "services/ledger/test/a.ts",
      "services/ledger/node_modules/p/index.js",
      "dist/start/x/a.js",
      "services/ledger/dist/a.js",
      "test/e2e/a.ts",
    ])
      write(path, "2");
    expect(sourceFingerprint(root)).toBe(before);

    write("services/ledger/src/main.ts", "2");
    const edited = sourceFingerprint(root);
    expect(edited).not.toBe(before);
    utimesSync(join(root, "services/schema-registry/seeds/a.json"), new Date(), new Date(Date.now() + 5_000));
    expect(sourceFingerprint(root)).not.toBe(edited);
  });

  it("uses the tree of the current sources when it exists, without compiling", () => {
    const tree = join(root, "dist", "start", sourceFingerprint(root));
    write(join("dist", "start", sourceFingerprint(root), "services/all-in-one/src/main.js"), "");
    expect(ensureRuntimeTree(root)).toBe(tree);
  });

  it("compiles the repository's sources into dist/start/<fingerprint>", () => {
    const repoRoot = join(import.meta.dirname, "..", "..");
    const tree = ensureRuntimeTree(repoRoot);
    expect(tree).toBe(join(repoRoot, "dist", "start", sourceFingerprint(repoRoot)));
    expect(existsSync(join(tree, "services/all-in-one/src/main.js"))).toBe(true);
    expect(existsSync(join(tree, "node_modules/@attesto/store"))).toBe(true);
  }, 180_000);
});
