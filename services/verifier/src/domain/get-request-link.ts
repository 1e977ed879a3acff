import { notFound } from "@attesto/runtime/errors";
import { authorizationRequestLinkOf } from "./authorization-request-link.js";
import type { VerifierDependencies } from "./ports.js";
import { isDcApiMode, type SessionStatus, statusAt } from "./verification-session.js";

export interface RequestLink {
  /** The `openid4vp://` link, exactly as `POST /v1/verifier/authorization-request` answered it. */
  link: string;
  status: SessionStatus;
  expiresAt: Date;
}

/**
 * The deep link and status of a session, for its QR code and public page, found by the request_uri's
 * random id (192 bits): whoever has that id already has the link. Nothing else of the session
 * (query, claims, checks, tenant, session id) is exposed. Unknown: 404.
 */
export async function getRequestLink(
  deps: Pick<VerifierDependencies, "sessions" | "verifierUrl" | "now">,
  requestUriId: string,
): Promise<RequestLink> {
  const session = await deps.sessions.findByRequestUriId(requestUriId);
  // A DC API request has no link: it travels through the calling page.
  if (!session || isDcApiMode(session.responseMode)) throw notFound("Request not found");
  return {
    link: authorizationRequestLinkOf(deps.verifierUrl, session),
    status: statusAt(session, deps.now()),
    expiresAt: session.expiresAt,
  };
}
