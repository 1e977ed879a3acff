import { createDpopProof } from "@attesto/protocol";
import type { JWK } from "jose";
import type { IssuerNotificationHandle } from "../model.js";
import type { HolderDependencies, WarningLog } from "../ports.js";
import { asksForDpopNonce } from "./request-credential.js";

export type NotificationEvent = "credential_accepted" | "credential_deleted";

/** Longest notification_id kept (issuers' are short random strings). */
const MAX_NOTIFICATION_ID_LENGTH = 512;

/**
 * The handle to keep with a stored credential: only when the issuer announces a notification
 * endpoint the wallet may call and the credential response carried a notification_id.
 */
export function notificationHandleOf(
  deps: Pick<HolderDependencies, "http">,
  input: {
    endpoint: string | undefined;
    notificationId: string | undefined;
    token: { token: string; scheme: "DPoP" | "Bearer" };
    dpopKey: JWK;
  },
): IssuerNotificationHandle | undefined {
  const { endpoint, notificationId } = input;
  if (!endpoint || !notificationId || notificationId.length > MAX_NOTIFICATION_ID_LENGTH) return undefined;
  if (deps.http.checkUrl(endpoint) !== undefined) return undefined;
  return {
    endpoint,
    notificationId,
    token: input.token.token,
    scheme: input.token.scheme,
    ...(input.token.scheme === "DPoP" ? { dpopKey: input.dpopKey as Record<string, unknown> } : {}),
  };
}

async function postNotification(
  deps: Pick<HolderDependencies, "http" | "now">,
  handle: IssuerNotificationHandle,
  event: NotificationEvent,
) {
  let nonce: string | undefined;
  for (let attempt = 0; ; attempt++) {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      authorization: `${handle.scheme} ${handle.token}`,
    };
    if (handle.scheme === "DPoP" && handle.dpopKey) {
      headers.dpop = await createDpopProof({
        privateJwk: handle.dpopKey as JWK,
        method: "POST",
        url: handle.endpoint,
        accessToken: handle.token,
        now: deps.now(),
        ...(nonce ? { nonce } : {}),
      });
    }
    const response = await deps.http.request(handle.endpoint, {
      method: "POST",
      headers,
      body: JSON.stringify({ notification_id: handle.notificationId, event }),
    });
    if (handle.scheme === "DPoP" && attempt === 0 && asksForDpopNonce(response)) {
      nonce = response.headers.get("dpop-nonce") ?? undefined;
      continue;
    }
    return response;
  }
}

/**
 * Tells the issuer what became of a credential (OID4VCI 1.0 §11), with the access token of its
 * credential request. Best effort: a failure (unreachable, refused, expired token) is logged at
 * warn, without the token or the credential, and never fails the user's action.
 */
export async function notifyIssuer(
  deps: Pick<HolderDependencies, "http" | "now">,
  log: WarningLog,
  handle: IssuerNotificationHandle | undefined,
  event: NotificationEvent,
): Promise<void> {
  if (!handle) return;
  try {
    const response = await postNotification(deps, handle, event);
    if (response.status !== 204 && response.status !== 200) {
      log.warn({ event, status: response.status }, "the credential issuer refused the notification");
    }
  } catch (error) {
    log.warn({ event, err: (error as Error).name }, "the credential issuer could not be notified");
  }
}
