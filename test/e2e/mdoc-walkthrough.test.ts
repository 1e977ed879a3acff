import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LauncherProcess, repoRoot } from "./support/launcher.js";
import { runBash, startWalkthroughPlatform, walkthroughBlocks } from "./support/walkthrough.js";

/**
 * docs/mdoc.md's worked example, run verbatim: the `sh` blocks between `<!-- mdoc-walkthrough:start -->`
 * and `<!-- mdoc-walkthrough:end -->`, in order, in one bash with `set -euo pipefail`, with
 * examples/mdl as checked in, against the all-in-one launcher (embedded database, its own data folder)
 * on a non-zero PORT_OFFSET, which the blocks derive every address from: an mDL issued by the
 * CLI-declared tenant, received by the custodial wallet, presented with age_over_18 only.
 */
const PORT_OFFSET = 12_210;
const SCRIPT_DEADLINE_MS = 180_000;

describe("docs/mdoc.md worked example against the platform", () => {
  const root = mkdtempSync(join(tmpdir(), "attesto-mdoc-walkthrough-"));
  const dataDir = join(root, "data");
  const out = join(root, "out");
  const guide = readFileSync(join(repoRoot, "docs/mdoc.md"), "utf8");
  let launcher: LauncherProcess;

  beforeAll(async () => {
    launcher = await startWalkthroughPlatform({ dataDir, portOffset: PORT_OFFSET });
  }, 300_000);

  afterAll(async () => {
    await launcher?.stop("SIGTERM", 15_000).catch(() => {});
    rmSync(root, { recursive: true, force: true });
  });

  it("runs every block in order: completed, age_over_18 the only disclosed element", {
    timeout: SCRIPT_DEADLINE_MS + 30_000,
  }, async () => {
    const blocks = walkthroughBlocks(guide, "mdoc-walkthrough");
    expect(blocks.length).toBe(7);
    const walkthrough = blocks.join("\n");
    // Nothing in the commands names a fixed platform port: they follow PORT_OFFSET.
    expect(walkthrough.split("\n").filter((line) => /localhost:808[1-8]\b/.test(line.split("#")[0]!))).toEqual([]);
    const epilogue = `
mkdir -p "${out}"
printf '%s' "$RESULT" > "${out}/result.json"
rm -rf "$WALK"
`;
    const env: NodeJS.ProcessEnv = { ...process.env, ATTESTO_DATA_DIR: dataDir, PORT_OFFSET: String(PORT_OFFSET) };
    const { code, output } = await runBash(`set -euo pipefail\n${walkthrough}\n${epilogue}`, env, SCRIPT_DEADLINE_MS);
    expect({ code, output }).toMatchObject({ code: 0 });
    // What the blocks print as comments is what they print.
    expect(output).toContain("tenant/demo-dmv created");
    expect(output).toContain('"vct":"org.iso.18013.5.1.mDL"');

    const result = JSON.parse(readFileSync(join(out, "result.json"), "utf8")) as {
      status: string;
      check_results: Array<{ check: string; status: string }>;
      presentation_metadata: { claims: Record<string, unknown>; credential_metadata: Array<Record<string, unknown>> };
    };
    expect(result.check_results.filter((check) => check.status === "failed")).toEqual([]);
    expect(result.status).toBe("completed");
    expect(result.check_results.map((check) => check.check)).toContain("holder_binding");
    expect(result.presentation_metadata.claims).toEqual({ "org.iso.18013.5.1": { age_over_18: true } });
    expect(result.presentation_metadata.credential_metadata[0]).toMatchObject({
      credential_type: ["org.iso.18013.5.1.mDL"],
    });
  });
});
