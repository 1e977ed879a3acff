/**
 * `npm start`: every Attesto service in this one process (see run-launcher.ts).
 *
 * Signal handlers come first, before the services are even loaded (that alone takes seconds):
 * a SIGTERM or Ctrl-C during start-up then stops it cleanly instead of killing it half-way.
 * A second signal still kills the process at once.
 */
const interrupted = new AbortController();
const interrupt = () => interrupted.abort();
process.once("SIGTERM", interrupt);
process.once("SIGINT", interrupt);

const { runLauncher } = await import("./run-launcher.js");
await runLauncher({
  interrupted: interrupted.signal,
  releaseSignals() {
    process.off("SIGTERM", interrupt);
    process.off("SIGINT", interrupt);
  },
});
