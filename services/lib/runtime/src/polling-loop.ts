/**
 * A background loop that polls the database for work (the ledger's checkpointer, the scheduler's
 * batch cutter): ticks never overlap (the next is scheduled when one ends), a failed tick is
 * reported and retried, and `stop()` waits for a running tick.
 *
 * Busy or idle: after a tick that reports work left (or failed), or after `wake()`, the next tick
 * comes `intervalMs` later; after a tick that found nothing, `idleIntervalMs` later. A process wakes
 * its loop when it creates the work itself (a ledger append, a notarization), so that work waits
 * no longer than with a fixed interval, while an idle platform sends no statement every second.
 * Work created by another replica is that replica's to wake; the idle interval bounds how long it
 * waits if that replica stopped first.
 */
export interface PollingLoop {
  /** Work was just created: the next tick comes within `intervalMs`. */
  wake(): void;
  /** No further tick; resolves when a running one has ended. */
  stop(): Promise<void>;
}

/** Created work, announced by the code that creates it to the loop that picks it up. */
export interface WakeSignal {
  wake(): void;
  /** Calls `listener` on every wake until the returned function is called. */
  subscribe(listener: () => void): () => void;
}

export function createWakeSignal(): WakeSignal {
  const listeners = new Set<() => void>();
  return {
    wake: () => {
      for (const listener of listeners) listener();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export interface PollingLoopOptions {
  intervalMs: number;
  /** Between ticks while idle (default `intervalMs`: no backoff); at least `intervalMs`. */
  idleIntervalMs?: number;
  /** One pass; resolves true when work is left (the loop stays busy). */
  tick: () => Promise<boolean>;
  onError: (error: unknown) => void;
  /** Wakes the loop as `wake()` does, until it stops. */
  wakeOn?: WakeSignal;
}

export function startPollingLoop(options: PollingLoopOptions): PollingLoop {
  const { intervalMs, tick, onError } = options;
  const idleIntervalMs = Math.max(options.idleIntervalMs ?? intervalMs, intervalMs);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  /** When the scheduled tick is due (ms since the epoch), if one is scheduled. */
  let dueAt: number | undefined;
  let running: Promise<void> | undefined;
  let wokenWhileRunning = false;

  const schedule = (delayMs: number) => {
    if (stopped) return;
    dueAt = Date.now() + delayMs;
    timer = setTimeout(run, delayMs);
    timer.unref();
  };

  const run = () => {
    timer = undefined;
    dueAt = undefined;
    wokenWhileRunning = false;
    running = tick()
      .catch((error: unknown) => {
        onError(error);
        return true;
      })
      .then((busy) => {
        running = undefined;
        schedule(busy || wokenWhileRunning ? intervalMs : idleIntervalMs);
      });
  };

  const wake = () => {
    if (stopped) return;
    if (running) {
      wokenWhileRunning = true;
      return;
    }
    if (dueAt !== undefined && dueAt - Date.now() > intervalMs) {
      clearTimeout(timer);
      schedule(intervalMs);
    }
  };
  const unsubscribe = options.wakeOn?.subscribe(wake);

  schedule(intervalMs);
  return {
    wake,
    async stop() {
      stopped = true;
      unsubscribe?.();
      clearTimeout(timer);
      await running;
    },
  };
}
