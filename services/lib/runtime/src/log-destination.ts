import pino from "pino";

/** pino sets `lastLevel` before each write on a destination that asks for it. */
const METADATA = Symbol.for("pino.metadata");
/** pino's level number of `error`: such lines (and `fatal`) are written at once, not at the end of the turn. */
const ERROR_LEVEL = 50;

/** Where a batch goes: pino's own stdout destination (EAGAIN retries, EPIPE tolerated), synchronous. */
interface LineSink {
  write(text: string): unknown;
}

/**
 * The process's one log destination (standard output), shared by every logger of the process (the
 * all-in-one runs seven services in one): lines written during one turn of the event loop are
 * joined and written with one synchronous `write` when the turn ends (`setImmediate`), instead of
 * one system call per line. Nothing waits on a timer or a size threshold, so an idle service's
 * line is out within the turn that wrote it; the process's `exit` (a clean shutdown, `process.exit`
 * after a fatal error, an uncaught exception) writes whatever is still pending first, so no line
 * that was logged before the process ended is lost. `error` and `fatal` lines are written at once
 * (with what is pending before them). Only a kill the process cannot see (SIGKILL) loses the lines
 * of the turn it interrupts. Writes are synchronous, as pino's own `pino.destination()` is by
 * default: a reader that stops reading standard output stalls the process once the pipe is full,
 * rather than lines piling up in memory.
 *
 * pino's default destination, used before, is one asynchronous stream per logger (several per
 * service), each line an `fs.write` on libuv's thread pool; at `npm start`'s `info` level
 * (two access-log lines per request) that cost more CPU per request than the lines themselves.
 */
export class BatchedLogDestination {
  readonly [METADATA] = true;
  /** The level of the line pino is about to write (set by pino, see METADATA). */
  lastLevel = 0;
  private pending = "";
  private scheduled = false;
  private readonly flushSoon = () => {
    this.scheduled = false;
    this.flush();
  };

  constructor(private readonly sink: LineSink) {}

  /** Called by pino with one serialized line (newline included). */
  write(line: string): boolean {
    this.pending += line;
    if (this.lastLevel >= ERROR_LEVEL) {
      this.flush();
      return true;
    }
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flushSoon);
    }
    return true;
  }

  /** Writes every pending line now (synchronously); `logger.flush(callback)` lands here. */
  flush(callback?: (error?: Error) => void): void {
    if (this.pending !== "") {
      const text = this.pending;
      this.pending = "";
      this.sink.write(text);
    }
    callback?.();
  }
}

let shared: BatchedLogDestination | undefined;

/** The process's log destination (created on first use, flushed on `exit`). */
export function logDestination(): BatchedLogDestination {
  if (!shared) {
    const destination = new BatchedLogDestination(pino.destination({ dest: 1, sync: true }));
    process.on("exit", () => destination.flush());
    shared = destination;
  }
  return shared;
}
