import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LauncherProcess, repoRoot } from "./support/launcher.js";
import { runBash as runScript, startWalkthroughPlatform, walkthroughBlocks } from "./support/walkthrough.js";

/**
 * The walkthrough (docs/walkthrough.md), run verbatim: the fenced `sh` blocks between
 * `<!-- walkthrough:start -->` and `<!-- walkthrough:end -->`, in order, in one bash with
 * `set -euo pipefail`, with the example YAML as checked in, against a real `npm start` (embedded
 * database, its own data folder) on a non-zero PORT_OFFSET: the blocks derive every address from
 * PORT_OFFSET and `attesto apply` fills the YAML's `${NAME:-default}` values from the environment,
 * so nothing is rewritten. The webhook receiver's port is WEBHOOK_PORT, as the README allows.
 */
const PORT_OFFSET = 10_610;
const WEBHOOK_PORT = 4000 + PORT_OFFSET;
const SCRIPT_DEADLINE_MS = 240_000;
const START_COMMAND = "OUTBOUND_ALLOW_HOSTS=localhost:4000 npm start";

const runBash = (script: string, env: NodeJS.ProcessEnv) => runScript(script, env, SCRIPT_DEADLINE_MS);

describe("README walkthrough against npm start", () => {
  const root = mkdtempSync(join(tmpdir(), "attesto-walkthrough-"));
  const dataDir = join(root, "data");
  const out = join(root, "out");
  const walkthroughPage = readFileSync(join(repoRoot, "docs", "walkthrough.md"), "utf8");
  let launcher: LauncherProcess;

  beforeAll(async () => {
    // The README's start command, with the receiver's port.
    launcher = await startWalkthroughPlatform({
      dataDir,
      portOffset: PORT_OFFSET,
      env: { OUTBOUND_ALLOW_HOSTS: `localhost:${WEBHOOK_PORT}` },
    });
  }, 300_000);

  afterAll(async () => {
    await launcher?.stop("SIGTERM", 15_000).catch(() => {});
    rmSync(root, { recursive: true, force: true });
  });

  it("starts the platform as the README says", () => {
    const outsideWalkthrough = walkthroughPage.slice(0, walkthroughPage.indexOf("<!-- walkthrough:start -->"));
    expect(outsideWalkthrough).toContain(`\`\`\`sh\n${START_COMMAND}\n\`\`\``);
  });

  it("runs every block in order: the presentation is verified and the webhook arrives", {
    timeout: SCRIPT_DEADLINE_MS + 30_000,
  }, async () => {
    const blocks = walkthroughBlocks(walkthroughPage);
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    const walkthrough = blocks.join("\n");
    // Nothing in the commands names a fixed platform port: they follow PORT_OFFSET.
    expect(walkthrough.split("\n").filter((line) => /localhost:(808[1-8]|4000)\b/.test(line.split("#")[0]!))).toEqual(
      [],
    );

    const epilogue = `
mkdir -p "${out}"
printf '%s' "$RESULT" > "${out}/result.json"
cp "$WALK/webhooks.ndjson" "${out}/webhooks.ndjson"
rm -rf "$WALK"
`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ATTESTO_DATA_DIR: dataDir,
      PORT_OFFSET: String(PORT_OFFSET),
      WEBHOOK_PORT: String(WEBHOOK_PORT),
    };
    delete env.SCHEMA_REGISTRY_URL; // block 1 derives it
    const { code, output } = await runBash(`set -euo pipefail\n${walkthrough}\n${epilogue}`, env);
    expect({ code, output }).toMatchObject({ code: 0 });

    const result = JSON.parse(readFileSync(join(out, "result.json"), "utf8")) as {
      session_id: string;
      status: string;
      check_results: Array<{ check: string; status: string }>;
      presentation_metadata: { claims: Record<string, unknown> };
    };
    expect(result.status).toBe("completed");
    expect(result.check_results.filter((c) => c.status === "failed")).toEqual([]);
    expect(result.check_results.map((c) => c.check)).toContain("policy.required_claims");
    expect(result.presentation_metadata.claims).toEqual({
      given_name: "Ada",
      degree: { type: "bachelor", name: "BSc Mathematics" },
    });

    // The vct the verifier accepted is the platform's own, at this offset.
    expect(output).not.toContain("vct_not_accepted");

    const events = readFileSync(join(out, "webhooks.ndjson"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; tenant: string; data: { session_id: string } });
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "verification.completed",
        tenant: "demo-university",
        data: expect.objectContaining({ session_id: result.session_id }),
      }),
    );
  });

  it("the json helper prints one line on stderr and exits 1 on a missing field or input that is not JSON", async () => {
    const helper = walkthroughBlocks(walkthroughPage)[0]!;
    const run = (input: string, path: string) =>
      runBash(`${helper}\nprintf '%s' '${input}' | json ${path}`, { ...process.env, PORT_OFFSET: "0" });
    expect(await run('{"a":{"b":[1,{"c":"x"}]}}', "a.b.1.c")).toEqual({ code: 0, output: "x\n" });
    expect(await run('{"a":{"b":1}}', "a.c")).toEqual({ code: 1, output: "json: no field a.c\n" });
    expect(await run("<html>not json", "a")).toEqual({ code: 1, output: "json: the input is not JSON\n" });
  });
});
