import { Code, ConnectError } from "@connectrpc/connect";
import { AppError, isAppError } from "../errors/app-error.js";

const CODE_BY_STATUS: Array<[number, Code]> = [
  [400, Code.InvalidArgument],
  [401, Code.Unauthenticated],
  [403, Code.PermissionDenied],
  [404, Code.NotFound],
  [409, Code.AlreadyExists],
  [410, Code.FailedPrecondition],
  [429, Code.ResourceExhausted],
  [503, Code.Unavailable],
];

const STATUS_BY_CODE = new Map<Code, number>([
  ...CODE_BY_STATUS.map(([status, code]) => [code, status] as [Code, number]),
  [Code.DeadlineExceeded, 503],
  // The callee's connection dropped mid-call (killed, restarting): as unreachable as a refused one.
  [Code.Aborted, 503],
]);

/** Header carrying the AppError's machine code across the wire. */
const ERROR_CODE_HEADER = "attesto-error-code";

/** The AppError machine code a failed call carried (`attesto-error-code`), if any. */
export const rpcErrorCodeOf = (error: unknown): string | undefined =>
  ConnectError.from(error).metadata.get(ERROR_CODE_HEADER) ?? undefined;

/** Server side: an AppError from a handler becomes a ConnectError; anything else becomes Internal. */
export function toConnectError(error: unknown): ConnectError {
  if (error instanceof ConnectError) return error;
  if (isAppError(error) && error.expose) {
    const code = CODE_BY_STATUS.find(([status]) => status === error.status)?.[1] ?? Code.InvalidArgument;
    return new ConnectError(error.message, code, { [ERROR_CODE_HEADER]: error.code });
  }
  if (isAppError(error) && error.status === 503) {
    return new ConnectError(error.message, Code.Unavailable, { [ERROR_CODE_HEADER]: error.code });
  }
  return new ConnectError("Internal error", Code.Internal, undefined, undefined, error);
}

/**
 * Client side: a failed call becomes an AppError a route can rethrow. Unreachable or timed-out
 * callees are 503 `unavailable`; client-side faults keep their status; the rest is internal.
 */
export function fromRpcError(error: unknown, context: string): AppError {
  const connectError = ConnectError.from(error);
  const status = STATUS_BY_CODE.get(connectError.code);
  const code = connectError.metadata.get(ERROR_CODE_HEADER);
  if (status === 503) {
    return new AppError(503, code ?? "unavailable", `${context} is unavailable`, { cause: error });
  }
  if (status !== undefined) {
    return new AppError(status, code ?? "invalid_request", connectError.rawMessage, { cause: error });
  }
  return new AppError(500, "server_error", `${context} failed`, { cause: error });
}
