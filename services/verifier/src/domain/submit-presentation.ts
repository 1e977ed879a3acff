import {
  AuthorizationResponseDecryptionError,
  decryptAuthorizationResponse,
  encryptionKidOf,
  parseDcqlQuery,
} from "@attesto/protocol";
import { type CacheScope, createCacheScope } from "@attesto/protocol/cache";
import { InvalidRequest } from "@attesto/runtime/errors";
import { formatOf } from "./checks/check.js";
import { verificationChecksFor } from "./checks/index.js";
import { responseUriOf } from "./get-request-object.js";
import { parseVpToken, type VpToken } from "./parse-vp-token.js";
import { activePolicies, policyVerificationMode, withPolicyAnchors } from "./policy/active-policy.js";
import type { VerifierPolicy } from "./policy/verifier-policy.js";
import type { RegisteredIssuers, VerifierDependencies } from "./ports.js";
import { createResponseCode, hashResponseCode } from "./response-code.js";
import {
  keyBindingAudienceOf,
  mdocHandoverOf,
  openid4vpHandoverOf,
  type ResponseHandover,
} from "./response-handover.js";
import { type CheckFailureReporter, runVerificationChecks } from "./run-verification-checks.js";
import { summarizePresentations } from "./summarize-presentations.js";
import {
  DEFAULT_VERIFICATION_MODE,
  isDcApiMode,
  sessionKeyContext,
  statusAt,
  VERIFICATION_MODES,
  type VerificationMode,
  type VerificationSession,
} from "./verification-session.js";

/** The form a wallet posts (direct_post) or the fields around an encrypted `response` (direct_post.jwt). */
export interface PresentationSubmission {
  state?: unknown;
  vp_token?: unknown;
  response?: unknown;
  verification_mode?: unknown;
}

export interface PresentationAccepted {
  /** The session's redirect_uri with `session_id` and a fresh `response_code`, when the session has one. */
  redirect_uri?: string;
}

const nonEmptyString = (value: unknown): value is string => typeof value === "string" && value.length > 0;

export function parseVerificationMode(value: unknown): VerificationMode | undefined {
  if (value === undefined || value === "") return undefined;
  if (typeof value === "string" && (VERIFICATION_MODES as readonly string[]).includes(value)) {
    return value as VerificationMode;
  }
  throw new InvalidRequest(`verification_mode must be one of ${VERIFICATION_MODES.join(", ")}`);
}

/** The session a response is for, if it may still take one (this service's README: unknown or expired is invalid_request). */
function assertAcceptsPresentation(
  session: VerificationSession | undefined,
  now: Date,
): asserts session is VerificationSession {
  if (!session || statusAt(session, now) === "expired") throw new InvalidRequest("session not found or expired");
  if (session.status !== "pending") throw new InvalidRequest("a presentation was already submitted for this session");
  if (isDcApiMode(session.responseMode)) {
    throw new InvalidRequest("this session takes its response through the Digital Credentials API");
  }
}

/**
 * `<redirect_uri>?session_id=<id>&response_code=<code>` (`&session_id=` when it has a query), before
 * any fragment.
 */
export function redirectWithSessionId(redirectUri: string, sessionId: string, responseCode?: string): string {
  const hashAt = redirectUri.indexOf("#");
  const base = hashAt === -1 ? redirectUri : redirectUri.slice(0, hashAt);
  const fragment = hashAt === -1 ? "" : redirectUri.slice(hashAt);
  const separator = base.includes("?") ? (base.endsWith("?") || base.endsWith("&") ? "" : "&") : "?";
  const code = responseCode === undefined ? "" : `&response_code=${encodeURIComponent(responseCode)}`;
  return `${base}${separator}session_id=${encodeURIComponent(sessionId)}${code}${fragment}`;
}

/** What verifying a matched response uses: the session store, the checks' edges, the recorder and events. */
export type VerificationDependencies = Pick<
  VerifierDependencies,
  "sessions" | "outcomes" | "pendingSessions" | "recorder" | "events" | "now"
> &
  Pick<VerifierDependencies, "limits" | "ledger" | "trustAnchors" | "statusLists"> &
  Pick<VerifierDependencies, "issuerDocuments" | "registeredIssuers">;

export interface ResolvedResponse {
  session: VerificationSession;
  /** The session tenant's verifier policies, read with the session (or current when the request began). */
  policies: readonly VerifierPolicy[];
  vpToken: unknown;
  mode: VerificationMode | undefined;
  /** The request's cache scope: the coherent caches its checks read trust one barrier, for when it began. */
  cacheScope?: CacheScope;
}

/** direct_post.jwt: find the session by the JWE's `kid` (or the posted state), decrypt with its key, match state. */
async function resolveEncryptedResponse(
  deps: Pick<VerifierDependencies, "sessions" | "sealer">,
  form: PresentationSubmission,
  now: Date,
): Promise<ResolvedResponse> {
  const jwe = form.response;
  if (!nonEmptyString(jwe)) throw new InvalidRequest("response must be a compact JWE");
  const kid = encryptionKidOf(jwe);
  let found = kid ? await deps.sessions.findForPresentation({ encryptionKid: kid }) : undefined;
  if (!found && nonEmptyString(form.state)) found = await deps.sessions.findForPresentation({ state: form.state });
  const session = found?.session;
  if (!session && !kid && !nonEmptyString(form.state)) {
    throw new InvalidRequest("state is required (or a response whose JWE header names its key with kid)");
  }
  assertAcceptsPresentation(session, now);
  if (session.responseMode !== "direct_post.jwt" || !session.encryptionKeyEnvelope) {
    throw new InvalidRequest("this session expects vp_token (direct_post), not an encrypted response");
  }
  const privateJwk = JSON.parse(
    new TextDecoder().decode(deps.sealer.open(session.encryptionKeyEnvelope, sessionKeyContext(session.id))),
  );
  let payload: Record<string, unknown>;
  try {
    payload = await decryptAuthorizationResponse(jwe, privateJwk);
  } catch (error) {
    if (error instanceof AuthorizationResponseDecryptionError)
      throw new InvalidRequest(error.message, { cause: error });
    throw error;
  }
  if (payload.state !== session.state || (nonEmptyString(form.state) && form.state !== session.state)) {
    throw new InvalidRequest("state does not match the session of the encrypted response");
  }
  if (payload.vp_token === undefined) throw new InvalidRequest("the encrypted response has no vp_token");
  return {
    session,
    policies: found!.policies,
    vpToken: payload.vp_token,
    mode: parseVerificationMode(payload.verification_mode),
  };
}

/**
 * direct_post: the session is the one of `state`: as this process created it (pending-sessions.ts,
 * with the tenant's current policies), else read with its policies.
 */
async function resolvePlainResponse(
  deps: Pick<VerifierDependencies, "sessions" | "pendingSessions" | "policies">,
  form: PresentationSubmission,
  now: Date,
  cacheScope: CacheScope,
): Promise<ResolvedResponse> {
  if (!nonEmptyString(form.state)) throw new InvalidRequest("state is required");
  if (form.vp_token === undefined || form.vp_token === "") throw new InvalidRequest("vp_token or response is required");
  const remembered = deps.pendingSessions.find(form.state);
  const found = remembered
    ? { session: remembered, policies: await deps.policies.current(remembered.tenant, cacheScope) }
    : await deps.sessions.findForPresentation({ state: form.state });
  const session = found?.session;
  assertAcceptsPresentation(session, now);
  if (session.responseMode === "direct_post.jwt") {
    throw new InvalidRequest("this session requires an encrypted response (direct_post.jwt)");
  }
  return { session, policies: found!.policies, vpToken: form.vp_token, mode: undefined, cacheScope };
}

/**
 * POST /v1/verifier/presentation. Refusals before verification are 400 `invalid_request`
 * (missing state, no vp_token/response, unknown or expired session, a second submission, a
 * response that does not decrypt or whose state differs, a submission that lost the race for the
 * session). An accepted presentation is verified and moves the session pending -> completed |
 * failed; the wallet gets 200 either way.
 */
export async function submitPresentation(
  deps: VerificationDependencies & Pick<VerifierDependencies, "sealer" | "verifierUrl" | "policies">,
  form: PresentationSubmission,
  report: CheckFailureReporter,
): Promise<PresentationAccepted> {
  // Made as the request begins: a change committed before it (a policy, an issuer's standing) is seen.
  const cacheScope = createCacheScope();
  const formMode = parseVerificationMode(form.verification_mode);
  const now = deps.now();
  const hasResponse = form.response !== undefined && form.response !== "";
  const resolved = hasResponse
    ? await resolveEncryptedResponse(deps, form, now)
    : await resolvePlainResponse(deps, form, now, cacheScope);
  return verifyResolvedResponse(
    deps,
    resolved,
    formMode,
    openid4vpHandoverOf(resolved.session, responseUriOf(deps.verifierUrl)),
    report,
  );
}

/**
 * The verification of a response matched to its session (direct_post, direct_post.jwt, and the
 * DC API's dc-api/): the checks run with the handover's key-binding audience, then one conditional
 * write moves the session pending -> completed | failed with the outcome (exactly one submission
 * wins; a loser gets the refusal a second presentation gets).
 */
export async function verifyResolvedResponse(
  deps: VerificationDependencies,
  resolved: ResolvedResponse,
  formMode: VerificationMode | undefined,
  handover: ResponseHandover,
  report: CheckFailureReporter,
): Promise<PresentationAccepted> {
  const submittedAt = deps.now();
  const { session } = resolved;
  const query = parseDcqlQuery(session.dcqlQuery);
  const vpToken: VpToken = parseVpToken(resolved.vpToken, query);
  const tenantPolicies = resolved.policies;
  const mode = formMode ?? resolved.mode ?? policyVerificationMode(tenantPolicies) ?? DEFAULT_VERIFICATION_MODE;
  const presentations = Object.entries(vpToken).flatMap(([queryId, items]) =>
    items.map((raw, index) => {
      const credentialQuery = query.credentials.find((credential) => credential.id === queryId);
      return { queryId, index, raw, query: credentialQuery, format: formatOf(raw, credentialQuery) };
    }),
  );
  const policies = activePolicies(tenantPolicies);
  const { cacheScope } = resolved;
  // With the request's scope, the issuer's standing trusts the barrier the policies took (one round trip).
  const registeredIssuers: RegisteredIssuers = cacheScope
    ? {
        snapshot: (isKnown) => deps.registeredIssuers.snapshot(isKnown),
        standingOf: (issuer) => deps.registeredIssuers.standingOf(issuer, cacheScope),
      }
    : deps.registeredIssuers;
  const checkResults = await runVerificationChecks(
    verificationChecksFor(policies.length > 0),
    {
      clientId: keyBindingAudienceOf(handover),
      nonce: session.nonce,
      // mdoc device signatures cover the handover: OpenID4VPHandover (client_id, nonce, response_uri,
      // the encryption key's thumbprint) or, for the DC API, OpenID4VPDCAPIHandover (origin, nonce, thumbprint).
      handover: mdocHandoverOf(handover, session),
      query,
      presentations,
      now: deps.now(),
      limits: deps.limits,
      ports: {
        ledger: deps.ledger,
        trustAnchors: withPolicyAnchors(deps.trustAnchors, policies),
        statusLists: deps.statusLists,
        issuerDocuments: deps.issuerDocuments,
        registeredIssuers,
      },
      policies,
    },
    mode,
    report,
  );
  const failedCheck = checkResults.find((result) => result.status === "failed");
  const status = failedCheck ? "failed" : "completed";
  // Same-device (OID4VP 1.0 §8.2, §14): the code goes to the wallet in the redirect, only its hash is
  // kept. Sessions signed by a caller key (the original modes) keep their redirect exactly as before.
  const responseCode = session.redirectUri && session.clientIdPrefix ? createResponseCode() : undefined;
  // Verify first, then record: the single-use claim and the outcome are one write (no in_progress
  // row, no second commit). Concurrent submissions may all be verified; the write admits one, and
  // only its outcome is stored, counted and announced.
  const verifiedAt = deps.now();
  const responseCodeHash = responseCode === undefined ? undefined : hashResponseCode(responseCode);
  const presentationMetadata = status === "completed" ? summarizePresentations(presentations) : undefined;
  const recorded = await deps.sessions.recordVerification(session.id, {
    mode,
    submittedAt,
    responseCodeHash,
    status,
    checkResults,
    presentationMetadata,
    verifiedAt,
  });
  // Decided, here or elsewhere: a later presentation for it reads the session.
  deps.pendingSessions.forget(session.state);
  if (!recorded) throw new InvalidRequest("a presentation was already submitted for this session");
  // The row as the write left it (its set columns, the keys cleared): the tenant's first result read
  // here answers from it.
  deps.outcomes.remember({
    ...session,
    status,
    verificationMode: mode,
    submittedAt,
    responseCodeHash,
    checkResults,
    presentationMetadata,
    verifiedAt,
    signingKeyEnvelope: undefined,
    encryptionKeyEnvelope: undefined,
  });
  deps.recorder.record(status, failedCheck?.check);
  // The result summary (no claim values), as the result endpoint reports it; not awaited by the wallet.
  void deps.events.finished({
    tenant: session.tenant,
    sessionId: session.id,
    verified: status === "completed",
    result: {
      status,
      verification_mode: mode,
      verified_at: verifiedAt.toISOString(),
      failed_check: failedCheck?.check ?? null,
      check_results: checkResults,
    },
  });
  return session.redirectUri
    ? { redirect_uri: redirectWithSessionId(session.redirectUri, session.id, responseCode) }
    : {};
}
