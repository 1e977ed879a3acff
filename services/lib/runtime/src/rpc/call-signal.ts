import { Code, ConnectError } from "@connectrpc/connect";
import { getAbortSignalReason } from "@connectrpc/connect/protocol";

/** Node's reason for an abort without one, made once (Node builds each with a stack trace). */
const CALL_ENDED = new DOMException("This operation was aborted", "AbortError");

/** Settles as `promise`, or rejects with the signal's reason as soon as it aborts (the caller's deadline). */
export function raceSignal<T>(signal: AbortSignal, promise: Promise<T>): Promise<T> {
  if (signal.aborted) return Promise.reject(getAbortSignalReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(getAbortSignalReason(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/**
 * The signal of one unary call, as Connect's `runUnaryCall` sets it up: aborted with
 * DeadlineExceeded when `timeoutMs` passes, with the caller's reason when the caller's signal
 * aborts, and at the end of the call (with one shared reason, not a new AbortError per call);
 * `fail` turns a failure into the ConnectError the call rejects with. The in-process and the h2c
 * transports both use it.
 */
export function callSignal(caller: AbortSignal | undefined, timeoutMs: number | undefined) {
  const controller = new AbortController();
  const onCallerAbort = () => controller.abort(getAbortSignalReason(caller as AbortSignal));
  let timer: NodeJS.Timeout | undefined;
  if (caller?.aborted) onCallerAbort();
  else caller?.addEventListener("abort", onCallerAbort);
  const timedOut = () => controller.abort(new ConnectError("the operation timed out", Code.DeadlineExceeded));
  if (timeoutMs !== undefined) {
    if (timeoutMs <= 0) timedOut();
    else timer = setTimeout(timedOut, timeoutMs);
  }
  const release = () => {
    clearTimeout(timer);
    caller?.removeEventListener("abort", onCallerAbort);
  };
  return {
    signal: controller.signal,
    done() {
      release();
      controller.abort(CALL_ENDED);
    },
    fail(reason: unknown): Promise<never> {
      const error = controller.signal.aborted
        ? ConnectError.from(getAbortSignalReason(controller.signal), Code.Canceled)
        : ConnectError.from(reason);
      controller.abort(error);
      release();
      return Promise.reject(error);
    },
  };
}
