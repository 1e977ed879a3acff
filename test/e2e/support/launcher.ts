import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

const READY_LINE = /Attesto ready in [\d.]+ s/;
const MAX_OUTPUT_CHARS = 200_000;

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface LauncherProcess {
  child: ChildProcess;
  /** Everything the launcher printed so far (stdout and stderr, interleaved). */
  output(): string;
  /** The embedded database URL printed in the ready report, when the database is embedded. */
  embeddedDatabaseUrl: string | undefined;
  exited: Promise<ExitStatus>;
  /** Sends `signal` and resolves with the exit status; fails when the process outlives `timeoutMs`. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<ExitStatus>;
}

/**
 * Runs the all-in-one's entry point (services/all-in-one/src/main.ts, which `npm start` runs
 * compiled) from the sources under tsx as a real child process, and resolves once it prints its
 * ready line. readme-walkthrough.test.ts runs `npm start` itself.
 */
export async function startLauncher(options: {
  env: NodeJS.ProcessEnv;
  readyTimeoutMs: number;
  /** How much of the output `output()` keeps (the latest characters); default 200 000. */
  maxOutputChars?: number;
}): Promise<LauncherProcess> {
  const maxOutputChars = options.maxOutputChars ?? MAX_OUTPUT_CHARS;
  const child = spawn(process.execPath, ["--import", "tsx", "services/all-in-one/src/main.ts"], {
    cwd: repoRoot,
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const append = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-maxOutputChars);
  };
  child.stdout!.on("data", append);
  child.stderr!.on("data", append);
  const exited = new Promise<ExitStatus>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  const tail = () => output.split("\n").slice(-40).join("\n");

  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`launcher not ready within ${options.readyTimeoutMs} ms; output:\n${tail()}`));
    }, options.readyTimeoutMs);
    const onData = () => {
      if (READY_LINE.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on("data", onData);
    void exited.then((status) => {
      clearTimeout(timer);
      reject(new Error(`launcher exited (${JSON.stringify(status)}) before it was ready; output:\n${tail()}`));
    });
  });

  return {
    child,
    output: () => output,
    embeddedDatabaseUrl: /database URL \(psql\): (\S+)/.exec(output)?.[1],
    exited,
    async stop(signal = "SIGTERM", timeoutMs = 15_000) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          child.kill("SIGKILL");
          reject(new Error(`launcher still running ${timeoutMs} ms after ${signal}; output:\n${tail()}`));
        }, timeoutMs);
      });
      try {
        return await Promise.race([exited, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
