import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LauncherProcess, repoRoot, startLauncher } from "./support/launcher.js";

/**
 * The root README's walkthrough, run as written: the fenced `sh` blocks between
 * `<!-- walkthrough:start -->` and `<!-- walkthrough:end -->`, in order, in one bash with
 * `set -euo pipefail`, against a real `npm start` (embedded database, its own data folder). The only
 * changes are the addresses: the platform runs on the default ports (root README, "Services and
 * ports") + PORT_OFFSET, the webhook receiver on 4000 + PORT_OFFSET, and the example YAML is a copy
 * with the same addresses.
 */
const PORT_OFFSET = 19_100;
const RECEIVER_PORT = 4000 + PORT_OFFSET;
const SCRIPT_DEADLINE_MS = 240_000;
const START_COMMAND = "OUTBOUND_ALLOW_HOSTS=localhost:4000 npm start";
const EXAMPLES = "examples/walkthrough";

/** The sh blocks of the README's walkthrough section, in order. */
function walkthroughBlocks(readme: string): string[] {
  const start = readme.indexOf("<!-- walkthrough:start -->");
  const end = readme.indexOf("<!-- walkthrough:end -->");
  if (start < 0 || end < start) throw new Error("README.md has no walkthrough:start / walkthrough:end markers");
  return [...readme.slice(start, end).matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

/** The platform's and the receiver's addresses moved by PORT_OFFSET; every one must be found. */
function localize(text: string): string {
  return text
    .replace(/localhost:(808[1-8])\b/g, (_, port: string) => `localhost:${Number(port) + PORT_OFFSET}`)
    .replaceAll("localhost:4000", `localhost:${RECEIVER_PORT}`)
    .replaceAll("listen(4000,", `listen(${RECEIVER_PORT},`);
}

/** Runs `script` in bash; resolves with its output, rejects (killing its process group) past the deadline. */
function runBash(script: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", script], {
      cwd: repoRoot,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    const timer = setTimeout(() => {
      process.kill(-child.pid!, "SIGKILL");
      reject(new Error(`the walkthrough did not finish within ${SCRIPT_DEADLINE_MS} ms; output:\n${output}`));
    }, SCRIPT_DEADLINE_MS);
    child.once("exit", (code) => {
      clearTimeout(timer);
      // The receiver (a background job) goes with its process group.
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {}
      resolve({ code, output });
    });
  });
}

describe("README walkthrough against npm start", () => {
  const root = mkdtempSync(join(tmpdir(), "attesto-walkthrough-"));
  const dataDir = join(root, "data");
  const examples = join(root, "examples");
  const out = join(root, "out");
  const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
  let launcher: LauncherProcess;

  beforeAll(async () => {
    cpSync(join(repoRoot, EXAMPLES), examples, { recursive: true });
    for (const file of readdirSync(examples)) {
      writeFileSync(join(examples, file), localize(readFileSync(join(examples, file), "utf8")));
    }
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT_OFFSET: String(PORT_OFFSET),
      ATTESTO_DATA_DIR: dataDir,
      // The README's start command, with the receiver's moved port.
      OUTBOUND_ALLOW_HOSTS: `localhost:${RECEIVER_PORT}`,
      LOG_LEVEL: "warn",
    };
    delete env.DATABASE_URL; // embedded PGlite, its own database in the data folder
    delete env.SERVICE_IDENTITY_PUBLIC_KEYS;
    delete env.SERVICE_IDENTITY_KEY;
    launcher = await startLauncher({ env, readyTimeoutMs: 240_000 });
  }, 300_000);

  afterAll(async () => {
    await launcher?.stop("SIGTERM", 15_000).catch(() => {});
    rmSync(root, { recursive: true, force: true });
  });

  it("starts the platform as the README says", () => {
    const outsideWalkthrough = readme.slice(0, readme.indexOf("<!-- walkthrough:start -->"));
    expect(outsideWalkthrough).toContain(`\`\`\`sh\n${START_COMMAND}\n\`\`\``);
  });

  it("runs every block in order: the presentation is verified and the webhook arrives", {
    timeout: SCRIPT_DEADLINE_MS + 30_000,
  }, async () => {
    const blocks = walkthroughBlocks(readme);
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    const walkthrough = localize(blocks.join("\n")).replaceAll(`-f ${EXAMPLES}`, `-f ${examples}`);
    // Every address was moved: nothing of the test can reach a platform on the default ports.
    expect(walkthrough).not.toMatch(/localhost:(808[1-8]|4000)\b|listen\(4000\b|examples\/walkthrough/);

    const epilogue = `
mkdir -p "${out}"
printf '%s' "$RESULT" > "${out}/result.json"
cp "$WALK/webhooks.ndjson" "${out}/webhooks.ndjson"
rm -rf "$WALK"
`;
    const { code, output } = await runBash(`set -euo pipefail\n${walkthrough}\n${epilogue}`, {
      ...process.env,
      ATTESTO_DATA_DIR: dataDir,
    });
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
});
