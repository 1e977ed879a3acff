import { AuthorizationResponseDecryptionError, decryptAuthorizationResponse } from "@attesto/protocol";
import { InvalidRequest } from "@attesto/runtime/errors";
import type { VerifierDependencies } from "../ports.js";
import { dcApiHandoverOf, keyBindingAudienceOf, type ResponseHandover } from "../response-handover.js";
import type { CheckFailureReporter } from "../run-verification-checks.js";
import {
  type PresentationAccepted,
  parseVerificationMode,
  type VerificationDependencies,
  verifyResolvedResponse,
} from "../submit-presentation.js";
import { sessionKeyContext, statusAt, type VerificationSession } from "../verification-session.js";
import { parseWebOrigin } from "./expected-origins.js";

/** What the page posts: the `data` of the DigitalCredential the browser returned (and, optionally, its protocol). */
export interface DcApiSubmission {
  protocol?: unknown;
  data?: unknown;
  verification_mode?: unknown;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** `data` as an object: the browser gives one; a page may also post it as JSON text. */
function dataOf(submission: DcApiSubmission): Record<string, unknown> {
  let data = submission.data;
  if (typeof data === "string") {
    try {
      data = JSON.parse(data);
    } catch {
      throw new InvalidRequest("data must be the JSON object the wallet returned");
    }
  }
  if (!isObject(data)) throw new InvalidRequest("data must be the JSON object the wallet returned");
  return data;
}

/** The DC API session a response may still go to: unknown, expired, answered or of another mode is refused. */
function assertAcceptsDcApiResponse(
  session: VerificationSession | undefined,
  now: Date,
): asserts session is VerificationSession {
  if (!session || statusAt(session, now) === "expired") throw new InvalidRequest("session not found or expired");
  if (session.responseMode !== "dc_api" && session.responseMode !== "dc_api.jwt") {
    throw new InvalidRequest("this session does not take Digital Credentials API responses");
  }
  if (session.status !== "pending") throw new InvalidRequest("a presentation was already submitted for this session");
}

/** dc_api.jwt: `data.response` is a JWE to the session's ephemeral key, exactly as in direct_post.jwt. */
async function payloadOf(
  deps: Pick<VerifierDependencies, "sealer">,
  session: VerificationSession,
  data: Record<string, unknown>,
) {
  if (session.responseMode === "dc_api") {
    if (data.response !== undefined)
      throw new InvalidRequest("this session expects vp_token (dc_api), not an encrypted response");
    return data;
  }
  if (typeof data.response !== "string" || data.response === "" || !session.encryptionKeyEnvelope) {
    throw new InvalidRequest(
      "this session requires an encrypted response (dc_api.jwt): data.response must be a compact JWE",
    );
  }
  const privateJwk = JSON.parse(
    new TextDecoder().decode(deps.sealer.open(session.encryptionKeyEnvelope, sessionKeyContext(session.id))),
  );
  try {
    return await decryptAuthorizationResponse(data.response, privateJwk);
  } catch (error) {
    if (error instanceof AuthorizationResponseDecryptionError)
      throw new InvalidRequest(error.message, { cause: error });
    throw error;
  }
}

/** The `aud` and `nonce` of every key-binding JWT in a vp_token, read without verifying (the checks verify). */
function keyBindingClaimsOf(vpToken: unknown): Array<{ aud?: unknown; nonce?: unknown }> {
  const presentations = isObject(vpToken) ? Object.values(vpToken).flat() : [vpToken];
  return presentations.flatMap((presentation) => {
    if (typeof presentation !== "string" || !presentation.includes("~")) return [];
    const kbJwt = presentation.slice(presentation.lastIndexOf("~") + 1);
    const payload = kbJwt.split(".")[1];
    if (!payload) return [];
    try {
      const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
      return isObject(claims) ? [claims] : [];
    } catch {
      return [];
    }
  });
}

/**
 * A response made for another session or another origin is refused before the session is touched,
 * so a replayed or misdirected response cannot burn a live session: every key-binding JWT must
 * name this session's nonce and the audience the handover demands. (The checks then verify them.)
 */
function assertBoundToSession(vpToken: unknown, handover: ResponseHandover, nonce: string): void {
  const audience = keyBindingAudienceOf(handover);
  for (const claims of keyBindingClaimsOf(vpToken)) {
    const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (claims.nonce !== nonce || !audiences.includes(audience)) {
      throw new InvalidRequest("the response was not made for this session and origin");
    }
  }
}

/**
 * POST /v1/verifier/dc-api/:sessionId (public, OID4VP 1.0 Appendix A): the `data` the page got from
 * `navigator.credentials.get`, checked like a direct_post response. Steps, each a 400
 * `invalid_request` that leaves the session as it was:
 * 1. the session: a pending, unexpired `dc_api` / `dc_api.jwt` session (single use);
 * 2. the origin: the calling page's `Origin`, a web origin in the session's `expected_origins`
 *    (any origin when an unsigned request named none);
 * 3. the payload: `data.vp_token` (dc_api), or `data.response` decrypted with the session's key (dc_api.jwt);
 * 4. the binding: key-binding JWTs name this session's nonce and the audience (`origin:<origin>`
 *    unsigned, the client_id signed);
 * then the checks run as for direct_post and the RP polls the result.
 */
export async function submitDcApiResponse(
  deps: VerificationDependencies & Pick<VerifierDependencies, "dcApiSessions" | "policies" | "sealer">,
  sessionId: string,
  originHeader: string | undefined,
  submission: DcApiSubmission,
  report: CheckFailureReporter,
): Promise<PresentationAccepted> {
  const now = deps.now();
  const formMode = parseVerificationMode(submission.verification_mode);
  const session = await deps.sessions.findById(sessionId);
  assertAcceptsDcApiResponse(session, now);
  const dcApi = await deps.dcApiSessions.find(session.id);
  if (!dcApi) throw new InvalidRequest("session not found or expired");

  const origin = originHeader === undefined ? undefined : parseWebOrigin(originHeader);
  if (origin === undefined) throw new InvalidRequest("the Origin header must name the web origin of the calling page");
  if (dcApi.expectedOrigins.length > 0 && !dcApi.expectedOrigins.includes(origin)) {
    throw new InvalidRequest("the calling origin is not one of this session's expected_origins");
  }

  const payload = await payloadOf(deps, session, dataOf(submission));
  if (payload.vp_token === undefined || payload.vp_token === "")
    throw new InvalidRequest("the response has no vp_token");
  const handover = dcApiHandoverOf(session, origin, dcApi.signed ? session.clientId : undefined);
  assertBoundToSession(payload.vp_token, handover, session.nonce);

  const policies = await deps.policies.listByTenant(session.tenant);
  const accepted = await verifyResolvedResponse(
    deps,
    { session, policies, vpToken: payload.vp_token, mode: parseVerificationMode(payload.verification_mode) },
    formMode,
    handover,
    report,
  );
  await deps.dcApiSessions.recordOrigin(session.id, origin);
  return accepted;
}
