import { REQUEST_URI_PREFIX } from "../par/handle-par-request.js";
import { randomSecret, sha256Hex } from "../secrets.js";
import {
  expiredAuthorizationRequest,
  incompleteAuthorizationRequest,
  unknownAuthorizationRequest,
  unknownClient,
  usedAuthorizationRequest,
} from "./authorization-page-error.js";
import type { AuthorizationRequest } from "./authorization-request.js";
import { authorizationResponseUrl, redirectSourceOf } from "./authorization-response.js";
import type { AuthorizationStepDeps } from "./authorization-step-deps.js";
import { type BrowserSession, ensureBrowserSession } from "./ensure-browser-session.js";
import type { IssuerDisplay } from "./issuer-display.js";
import { type OfferedClaim, offeredClaims } from "./offered-claims.js";

/** What the consent page shows and submits. */
export interface ConsentView {
  /** The authorization request the form answers, and its CSRF token (bound to the browser session). */
  requestId: string;
  csrfToken: string;
  clientId: string;
  /** The tenant's display name, or its identifier when the metadata is unavailable. */
  issuerName: string;
  /** Each credential with the claims the offer carries (labels, nested ones grouped; never values). */
  credentials: Array<{ id: string; name: string; description: string | undefined; claims: OfferedClaim[] }>;
  /** Where the browser returns to (shown to the person; the CSP form-action source). */
  redirectUri: string;
  redirectSource: string;
  expiresAt: Date;
}

export type StartAuthorizationResult =
  | { kind: "consent"; consent: ConsentView; session: BrowserSession }
  | { kind: "redirect"; location: string; session: BrowserSession };

/** The request a request_uri names, or the page that explains why there is none. */
async function pushedRequestOf(
  clientId: string | undefined,
  requestUri: string | undefined,
  deps: AuthorizationStepDeps,
): Promise<AuthorizationRequest & { requestUriHash: string }> {
  if (!clientId || !requestUri) throw incompleteAuthorizationRequest();
  if (!requestUri.startsWith(REQUEST_URI_PREFIX)) throw unknownAuthorizationRequest();
  const requestUriHash = sha256Hex(requestUri.slice(REQUEST_URI_PREFIX.length));
  const request = await deps.requests.findByRequestUriHash(requestUriHash);
  if (!request) throw unknownAuthorizationRequest();
  // Never redirect before the client is known: a mismatch shows a page and leaves the request unused.
  if (request.clientId !== clientId) throw unknownClient();
  if (request.status !== "pushed") throw usedAuthorizationRequest();
  if (request.expiresAt.getTime() <= deps.now().getTime()) throw expiredAuthorizationRequest();
  return { ...request, requestUriHash };
}

function consentViewOf(
  request: AuthorizationRequest,
  display: IssuerDisplay | undefined,
  claimPaths: string[][],
  presented: { csrfToken: string; expiresAt: Date },
): ConsentView {
  return {
    requestId: request.id,
    csrfToken: presented.csrfToken,
    clientId: request.clientId,
    issuerName: display?.name ?? request.tenant ?? "",
    credentials: request.credentialConfigurationIds.map((id) => {
      const configuration = display?.configurations[id];
      return {
        id,
        name: configuration?.name ?? id,
        description: configuration?.description,
        claims: offeredClaims(claimPaths, configuration?.claims ?? []),
      };
    }),
    redirectUri: request.redirectUri,
    redirectSource: redirectSourceOf(request.redirectUri),
    expiresAt: presented.expiresAt,
  };
}

/**
 * `GET /v1/authorize?client_id&request_uri`: the pushed request must exist, belong to `client_id`,
 * be unused and unexpired; it is then consumed (single use) and bound to this browser's session,
 * and the consent page is shown with a CSRF token. A request without a credential offer cannot be
 * approved: the client gets `invalid_request` at its (verified) redirect_uri.
 */
export async function startAuthorization(
  input: { clientId: string | undefined; requestUri: string | undefined; browserSessionId: string | undefined },
  deps: AuthorizationStepDeps,
): Promise<StartAuthorizationResult> {
  const pushed = await pushedRequestOf(input.clientId, input.requestUri, deps);
  const session = await ensureBrowserSession(input.browserSessionId, deps);
  const csrfToken = randomSecret();
  const now = deps.now();
  const expiresAt = new Date(now.getTime() + deps.consentTtlSeconds * 1000);
  const request = await deps.requests.present(pushed.requestUriHash, {
    browserSessionHash: session.idHash,
    csrfTokenHash: sha256Hex(csrfToken),
    consentExpiresAt: expiresAt,
    now,
  });
  if (!request) throw usedAuthorizationRequest();
  if (request.tenant === undefined) {
    const location = authorizationResponseUrl(request.redirectUri, {
      error: "invalid_request",
      error_description: "the authorization request names no credential offer (issuer_state)",
      state: request.state,
      iss: deps.issuer,
    });
    return { kind: "redirect", location, session };
  }
  // The offer's claims (paths only), asked again: an offer that is gone by now lists none (Approve then fails).
  const [display, grant] = await Promise.all([
    deps.issuerDisplay.describe(request.tenant),
    request.issuerState ? deps.grants.resolveIssuerState(request.issuerState) : undefined,
  ]);
  const claimPaths = grant?.claimPaths ?? [];
  return { kind: "consent", consent: consentViewOf(request, display, claimPaths, { csrfToken, expiresAt }), session };
}
