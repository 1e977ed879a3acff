import { AppError } from "@attesto/runtime/errors";
import { fromRpcError } from "@attesto/runtime/rpc";

/**
 * 503 whose message is shown to the client (`Ledger is unavailable`): the runtime hides the
 * message of every status >= 500, but this one names a dependency, not an internal detail.
 */
export class DependencyUnavailableError extends AppError {
  override get expose(): boolean {
    return true;
  }
}

/**
 * A failed call to another service as this service's error: unreachable or timed out => 503
 * `<service> is unavailable`; anything else is our fault or theirs, never the client's => 500.
 */
export function upstreamError(error: unknown, service: string): AppError {
  const appError = fromRpcError(error, service);
  if (appError.status === 503) {
    return new DependencyUnavailableError(503, "unavailable", `${service} is unavailable`, { cause: error });
  }
  return new AppError(500, "server_error", `${service} failed`, { cause: error });
}
