import { CompactEncrypt, importJWK, type JWK } from "jose";
import { presentationFailed } from "../errors.js";
import { fetchFromThirdParty } from "../http/fetch-from-third-party.js";
import { describeFailure, isJsonObject, jsonObjectOf, stringOf } from "../http/read-json.js";
import type { HolderDependencies } from "../ports.js";
import type { ResolvedAuthorizationRequest } from "./resolve-authorization-request.js";

/** Content encryption the wallet can use for direct_post.jwt (HAIP: both must be supported). */
const SUPPORTED_ENC = ["A128GCM", "A256GCM"];
/** OID4VP 1.0 §8.3: the default when the verifier does not say. */
const DEFAULT_ENC = "A128GCM";

export interface SubmittedResponse {
  redirectUri: string | undefined;
}

/** The verifier's response-encryption key: an ECDH-ES P-256 key of `client_metadata.jwks`. */
export function encryptionKeyOf(clientMetadata: Record<string, unknown>): JWK {
  const jwks = clientMetadata.jwks;
  const keys = isJsonObject(jwks) && Array.isArray(jwks.keys) ? jwks.keys.filter(isJsonObject) : [];
  const key = keys.find(
    (candidate) =>
      candidate.kty === "EC" &&
      candidate.crv === "P-256" &&
      (candidate.use === undefined || candidate.use === "enc") &&
      (candidate.alg === undefined || candidate.alg === "ECDH-ES"),
  );
  if (!key) throw presentationFailed("the verifier offers no ECDH-ES P-256 key in client_metadata.jwks");
  return key as JWK;
}

/** The verifier's preferred content encryption among those the wallet supports. */
function contentEncryptionOf(clientMetadata: Record<string, unknown>): string {
  const offered = clientMetadata.encrypted_response_enc_values_supported;
  if (!Array.isArray(offered)) return DEFAULT_ENC;
  const usable = offered.find((enc) => typeof enc === "string" && SUPPORTED_ENC.includes(enc));
  if (!usable)
    throw presentationFailed("the verifier supports no response encryption the wallet can use (A128GCM, A256GCM)");
  return usable as string;
}

/** direct_post.jwt: `{vp_token, state}` as a compact JWE (ECDH-ES, A128GCM/A256GCM) to the verifier's key. */
async function encryptResponse(request: ResolvedAuthorizationRequest, vpToken: Record<string, string[]>) {
  const jwk = encryptionKeyOf(request.clientMetadata);
  const enc = contentEncryptionOf(request.clientMetadata);
  let key: Awaited<ReturnType<typeof importJWK>>;
  try {
    key = await importJWK({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }, "ECDH-ES");
  } catch (error) {
    throw presentationFailed("the verifier's encryption key cannot be used", { cause: error });
  }
  const payload = { vp_token: vpToken, ...(request.state === undefined ? {} : { state: request.state }) };
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: "ECDH-ES", enc, ...(typeof jwk.kid === "string" ? { kid: jwk.kid } : {}) })
    .encrypt(key);
}

/**
 * Sends the authorization response to `response_uri` (OID4VP 1.0 §8.2): a form with `vp_token`
 * (JSON object keyed by credential query id, arrays of presentations) and `state` for
 * direct_post; a form with `response` (the JWE) for direct_post.jwt. The verifier's 200 may carry
 * a `redirect_uri`; any other answer is 400 `presentation_failed` with the verifier's reason.
 */
export async function submitAuthorizationResponse(
  deps: Pick<HolderDependencies, "http">,
  request: ResolvedAuthorizationRequest,
  vpToken: Record<string, string[]>,
): Promise<SubmittedResponse> {
  const form = new URLSearchParams();
  if (request.responseMode === "direct_post.jwt") {
    form.set("response", await encryptResponse(request, vpToken));
  } else {
    form.set("vp_token", JSON.stringify(vpToken));
    if (request.state !== undefined) form.set("state", request.state);
  }
  const response = await fetchFromThirdParty(
    deps,
    request.responseUri,
    "verifier response endpoint",
    presentationFailed,
    {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: form.toString(),
    },
  );
  if (response.status !== 200) {
    throw presentationFailed(`the verifier refused the presentation (${describeFailure(response)})`);
  }
  return { redirectUri: stringOf(jsonObjectOf(response)?.redirect_uri) };
}
