import { AppError } from "@attesto/runtime/errors";
import { resolveHolderKey } from "../dids/resolve-holder-key.js";
import { issuanceFailed } from "../errors.js";
import { sameIdentifier } from "../http/well-known.js";
import type { StoredCredential } from "../model.js";
import type { HolderDependencies, WarningLog } from "../ports.js";
import type { AuthorizationFlow, AuthorizationFlowSecrets } from "./authorization-flow.js";
import { postTokenRequest, supportsDpop } from "./request-access-token.js";
import { stateHashOf } from "./start-authorization.js";
import { requestAndStoreCredential } from "./store-issued-credential.js";
import { clientAttestationHeaders } from "./wallet-attestation.js";

/** The query of the authorization response (RFC 6749 §4.1.2, RFC 9207 `iss`), as the browser brings it. */
export interface AuthorizationResponse {
  state: string | undefined;
  code: string | undefined;
  error: string | undefined;
  iss: string | undefined;
}

/** OAuth error codes of an authorization response, named as such; anything else is not repeated. */
const KNOWN_ERRORS = new Set([
  "access_denied",
  "invalid_request",
  "unauthorized_client",
  "unsupported_response_type",
  "invalid_scope",
  "invalid_authorization_details",
  "server_error",
  "temporarily_unavailable",
]);

const invalidCallback = (message: string) => new AppError(400, "invalid_request", message);

/** Why no pending flow has this state: unknown, expired, or already answered (a replayed callback). */
async function refusalFor(deps: Pick<HolderDependencies, "authorizationFlows">, stateHash: string): Promise<AppError> {
  const flow = await deps.authorizationFlows.findByStateHash(stateHash);
  if (!flow) return invalidCallback("the authorization response names no authorization flow of this wallet");
  if (flow.status === "pending") return invalidCallback("the authorization flow has expired: start it again");
  return invalidCallback("this authorization response was already used");
}

async function redeem(
  deps: Pick<HolderDependencies, "dids" | "credentials" | "ledger" | "http" | "now" | "clockSkewSeconds">,
  flow: AuthorizationFlow & { secrets: AuthorizationFlowSecrets },
  response: AuthorizationResponse,
  log: WarningLog,
): Promise<StoredCredential> {
  const { secrets } = flow;
  const as = secrets.authorizationServer;
  // RFC 9207: the response must come from the server the request went to (mix-up defence).
  if (response.iss !== undefined && !sameIdentifier(response.iss, as.issuer)) {
    throw issuanceFailed("the authorization response comes from another authorization server (iss)");
  }
  if (response.iss === undefined && as.authorization_response_iss_parameter_supported === true) {
    throw issuanceFailed("the authorization response has no iss although the authorization server sends it");
  }
  if (response.error !== undefined) {
    const named = KNOWN_ERRORS.has(response.error) ? response.error : "an error";
    throw new AppError(400, "authorization_denied", `the authorization server answered ${named}`);
  }
  if (!response.code) throw issuanceFailed("the authorization response has no code");
  const holder = await resolveHolderKey(deps, flow.userUuid, secrets.holderDid, secrets.privateKey);
  if (secrets.notarizeOnLedger) await deps.ledger.assertReachable();
  const token = await postTokenRequest(deps, {
    metadata: as,
    form: new URLSearchParams({
      grant_type: "authorization_code",
      code: response.code,
      redirect_uri: secrets.redirectUri,
      client_id: secrets.clientId,
      code_verifier: secrets.codeVerifier,
    }),
    dpopKey: secrets.dpopKey,
    useDpop: supportsDpop(as),
    grant: "authorization code",
    ...(secrets.dpopNonce ? { nonce: secrets.dpopNonce } : {}),
    clientAuthentication: async () =>
      secrets.attestation
        ? clientAttestationHeaders(secrets.attestation, {
            clientId: secrets.clientId,
            audience: as.issuer,
            now: deps.now(),
          })
        : {},
  });
  return requestAndStoreCredential(
    deps,
    flow.userUuid,
    {
      target: secrets.target,
      holder,
      token,
      dpopKey: secrets.dpopKey,
      notarizeOnLedger: secrets.notarizeOnLedger,
    },
    log,
  );
}

/**
 * GET /v1/oid4vci/callback: the browser's return from the authorization server. The `state` names
 * the flow (by its SHA-256); the flow is taken atomically (pending -> redeeming), so a replayed
 * or concurrent callback finds nothing to take. Then `iss`, `error`, the code exchange (PKCE
 * verifier, DPoP with the flow's key, a fresh attestation PoP), the credential request with a key
 * proof, verification and storage as in receive. The flow ends `completed` (with the credential id)
 * or `failed` (with the error), and its sealed secrets are erased either way.
 */
export async function completeAuthorization(
  deps: Pick<HolderDependencies, "authorizationFlows" | "dids" | "credentials"> &
    Pick<HolderDependencies, "ledger" | "http" | "now" | "clockSkewSeconds">,
  response: AuthorizationResponse,
  log: WarningLog,
): Promise<{ flowId: string; credential: StoredCredential }> {
  if (!response.state) throw invalidCallback("the authorization response has no state");
  const stateHash = stateHashOf(response.state);
  const flow = await deps.authorizationFlows.claim(stateHash, deps.now());
  if (!flow) throw await refusalFor(deps, stateHash);
  try {
    const credential = await redeem(deps, flow, response, log);
    await deps.authorizationFlows.end(flow.id, { status: "completed", credentialId: credential.id }, deps.now());
    return { flowId: flow.id, credential };
  } catch (error) {
    const failure =
      error instanceof AppError
        ? { error: error.code, errorDescription: error.message }
        : { error: "issuance_failed", errorDescription: "the credential could not be received" };
    await deps.authorizationFlows.end(flow.id, { status: "failed", ...failure }, deps.now());
    throw error;
  }
}
