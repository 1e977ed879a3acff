import type { Checkpointing } from "./ports.js";

/**
 * The background checkpointer: every `intervalMs`, a new signed checkpoint when the log grew.
 * Ticks never overlap (the next is scheduled when one ends) and a failed tick is reported and
 * retried on the next. The returned function stops it and waits for a running tick.
 */
export function startCheckpointer(options: {
  checkpointing: Checkpointing;
  intervalMs: number;
  onError: (error: unknown) => void;
}): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const schedule = () => {
    timer = setTimeout(tick, options.intervalMs);
    timer.unref();
  };
  const tick = () => {
    running = options.checkpointing
      .refresh()
      .then(() => undefined, options.onError)
      .finally(() => {
        if (!stopped) schedule();
      });
  };

  schedule();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
