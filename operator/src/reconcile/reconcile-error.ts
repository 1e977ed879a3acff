import { Code, ConnectError } from "@connectrpc/connect";
import { KubeApiError, KubeConflictError } from "../kube/kube-client.js";

/**
 * A reconcile failure with a PascalCase reason for conditions and Events. `retryable` failures come
 * back through the queue's backoff; the others wait for a change (of the spec, a Secret, the platform).
 * Messages never carry secret values.
 */
export class ReconcileError extends Error {
  override name = "ReconcileError";
  constructor(
    readonly reason: string,
    message: string,
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export const blockedError = (reason: string, message: string, cause?: unknown) =>
  new ReconcileError(reason, message, false, { cause });
export const retryableError = (reason: string, message: string, cause?: unknown) =>
  new ReconcileError(reason, message, true, { cause });

/** Classifies a failed platform (Connect) call made for `what` (e.g. "ApplyTenant"). */
export function fromPlatformError(error: unknown, what: string): ReconcileError {
  if (error instanceof ReconcileError) return error;
  const connect = ConnectError.from(error);
  const detail = `${what}: ${connect.rawMessage || Code[connect.code]}`;
  switch (connect.code) {
    case Code.InvalidArgument:
    case Code.AlreadyExists:
    case Code.FailedPrecondition:
    case Code.OutOfRange:
      return blockedError("PlatformRejected", detail, error);
    case Code.Unimplemented:
      return blockedError("PlatformUnsupported", `${what} is not implemented by the platform`, error);
    case Code.Unauthenticated:
    case Code.PermissionDenied:
      // Usually the platform does not know the operator's identity key (SERVICE_IDENTITY_KEY against
      // SERVICE_IDENTITY_PUBLIC_KEYS): retry, an operator fixing the Secret should not have to touch
      // every resource.
      return retryableError("PlatformUnauthorized", detail, error);
    case Code.NotFound:
      return retryableError("PlatformNotFound", detail, error);
    default:
      return retryableError("PlatformUnavailable", detail, error);
  }
}

/** Any failure of a reconcile, classified. */
export function toReconcileError(error: unknown): ReconcileError {
  if (error instanceof ReconcileError) return error;
  if (error instanceof KubeConflictError) return retryableError("Conflict", error.message, error);
  if (error instanceof KubeApiError) return retryableError("KubernetesApiError", error.message, error);
  if (error instanceof ConnectError) return fromPlatformError(error, "platform call");
  return retryableError("InternalError", error instanceof Error ? error.message : String(error), error);
}
