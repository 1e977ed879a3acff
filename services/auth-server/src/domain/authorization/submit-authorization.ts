import { InvalidGrant, isAppError } from "@attesto/runtime/errors";
import type { Grant } from "../grant.js";
import { matchesHash, randomSecret, sha256Hex } from "../secrets.js";
import { AUTHORIZATION_CODE_LIFETIME_SECONDS } from "./authorization-code.js";
import {
  browserSessionMissing,
  consentAlreadyAnswered,
  consentExpired,
  consentFormNotVerified,
  incompleteConsentForm,
  unknownAuthorizationRequest,
} from "./authorization-page-error.js";
import type { AuthorizationRequest } from "./authorization-request.js";
import { authorizationResponseUrl } from "./authorization-response.js";
import type { AuthorizationStepDeps } from "./authorization-step-deps.js";

export type ConsentDecision = "approve" | "deny";

export interface ConsentSubmission {
  requestId: string | undefined;
  csrfToken: string | undefined;
  decision: string | undefined;
  browserSessionId: string | undefined;
}

const isDecision = (value: string | undefined): value is ConsentDecision => value === "approve" || value === "deny";

/** The presented request this form answers, from the browser session it was shown to, with its CSRF token. */
async function verifiedRequestOf(
  submission: ConsentSubmission,
  deps: AuthorizationStepDeps,
): Promise<{ request: AuthorizationRequest; sessionHash: string; decision: ConsentDecision }> {
  const { requestId, csrfToken, decision } = submission;
  if (!requestId || !csrfToken || !isDecision(decision)) throw incompleteConsentForm();
  if (!submission.browserSessionId) throw browserSessionMissing();
  const sessionHash = sha256Hex(submission.browserSessionId);
  if (!(await deps.sessions.isActive(sessionHash, deps.now()))) throw browserSessionMissing();
  const request = await deps.requests.findById(requestId);
  if (!request) throw unknownAuthorizationRequest();
  if (
    request.browserSessionHash !== sessionHash ||
    request.csrfTokenHash === undefined ||
    !matchesHash(csrfToken, request.csrfTokenHash)
  ) {
    throw consentFormNotVerified();
  }
  if (request.status !== "presented") throw consentAlreadyAnswered();
  if ((request.consentExpiresAt?.getTime() ?? 0) <= deps.now().getTime()) throw consentExpired();
  return { request, sessionHash, decision };
}

/** Approval: the issuer consumes the offer's issuer_state; the client gets a code for what was authorized. */
async function issueCode(request: AuthorizationRequest, deps: AuthorizationStepDeps): Promise<Record<string, string>> {
  let grant: Grant;
  try {
    grant = await deps.grants.redeemIssuerState(request.issuerState ?? "");
  } catch (error) {
    if (error instanceof InvalidGrant) {
      return { error: "access_denied", error_description: "the credential offer has expired or was already used" };
    }
    if (isAppError(error) && error.status === 503) {
      return { error: "temporarily_unavailable", error_description: "the credential issuer is unavailable" };
    }
    throw error;
  }
  const authorized = request.credentialConfigurationIds.filter((id) => grant.credentialConfigurationIds.includes(id));
  if (authorized.length === 0) {
    return { error: "access_denied", error_description: "the credential offer no longer holds what was requested" };
  }
  const code = randomSecret();
  const now = deps.now();
  await deps.codes.insert({
    codeHash: sha256Hex(code),
    authorizationRequestId: request.id,
    clientId: request.clientId,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    dpopJkt: request.dpopJkt,
    clientAttested: request.clientAttested,
    grant: { ...grant, credentialConfigurationIds: authorized },
    createdAt: now,
    expiresAt: new Date(now.getTime() + AUTHORIZATION_CODE_LIFETIME_SECONDS * 1000),
  });
  return { code };
}

/**
 * `POST /v1/authorize/submit`: the consent form, from the browser session that was shown it, with
 * its CSRF token, answered once before it expires. Deny sends `error=access_denied`; approve
 * redeems the offer and sends a single-use code. Both carry `state` and `iss` (RFC 9207) to the
 * redirect_uri of the pushed request. Anything else is an error page.
 */
export async function submitAuthorization(
  submission: ConsentSubmission,
  deps: AuthorizationStepDeps,
): Promise<{ location: string }> {
  const { request, sessionHash, decision } = await verifiedRequestOf(submission, deps);
  const completed = await deps.requests.complete(request.id, {
    browserSessionHash: sessionHash,
    decision: decision === "approve" ? "approved" : "denied",
    now: deps.now(),
  });
  if (!completed) throw consentAlreadyAnswered();
  const response = decision === "deny" ? { error: "access_denied" } : await issueCode(completed, deps);
  return {
    location: authorizationResponseUrl(completed.redirectUri, {
      ...response,
      state: completed.state,
      iss: deps.issuer,
    }),
  };
}
