import { spawn } from "node:child_process";
import { type LauncherProcess, repoRoot, startLauncher } from "./launcher.js";

/**
 * Documented walkthroughs run verbatim: the fenced `sh` blocks between `<!-- <name>:start -->` and
 * `<!-- <name>:end -->` of a Markdown file, in order, in one bash.
 */

/** The sh blocks of the `marker` section (`walkthrough`, `mdoc-walkthrough`), in order. */
export function walkthroughBlocks(markdown: string, marker = "walkthrough"): string[] {
  const start = markdown.indexOf(`<!-- ${marker}:start -->`);
  const end = markdown.indexOf(`<!-- ${marker}:end -->`);
  if (start < 0 || end < start) throw new Error(`no ${marker}:start / ${marker}:end markers`);
  return [...markdown.slice(start, end).matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

/** Runs `script` in bash; resolves with its output, rejects (killing its process group) past `deadlineMs`. */
export function runBash(
  script: string,
  env: NodeJS.ProcessEnv,
  deadlineMs: number,
): Promise<{ code: number | null; output: string }> {
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
      reject(new Error(`the walkthrough did not finish within ${deadlineMs} ms; output:\n${output}`));
    }, deadlineMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      // Background jobs (a receiver) go with its process group.
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {}
      resolve({ code, output });
    });
  });
}

/**
 * The platform a walkthrough runs against, as a reader starts it: the all-in-one launcher on
 * `portOffset`, the embedded database in `dataDir`, the platform's own service identities.
 */
export function startWalkthroughPlatform(options: {
  dataDir: string;
  portOffset: number;
  env?: NodeJS.ProcessEnv;
}): Promise<LauncherProcess> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT_OFFSET: String(options.portOffset),
    ATTESTO_DATA_DIR: options.dataDir,
    LOG_LEVEL: "warn",
    ...options.env,
  };
  delete env.DATABASE_URL; // embedded PGlite, its own database in the data folder
  delete env.SERVICE_IDENTITY_PUBLIC_KEYS;
  delete env.SERVICE_IDENTITY_KEY;
  return startLauncher({ env, readyTimeoutMs: 240_000 });
}
