import { spawn } from "node:child_process";
import { repoRoot } from "./launcher.js";

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
