import { compactDecrypt, decodeProtectedHeader, importJWK, type JWK } from "jose";
import { RESPONSE_ENCRYPTION_ALG, RESPONSE_ENCRYPTION_ENC_VALUES } from "./create-response-encryption-key.js";

/** A `response` that cannot be used; the message is safe to show. */
export class AuthorizationResponseDecryptionError extends Error {
  override name = "AuthorizationResponseDecryptionError";
}

/** The `kid` of a compact JWE's protected header (which response key it is for), if any. */
export function encryptionKidOf(jwe: string): string | undefined {
  if (jwe.split(".").length !== 5) return undefined;
  try {
    const { kid } = decodeProtectedHeader(jwe);
    return typeof kid === "string" ? kid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Decrypts a `direct_post.jwt` authorization response (compact JWE, ECDH-ES on P-256, A128GCM or
 * A256GCM; `apu`/`apv` not required) and returns its JSON payload (`vp_token`, `state`, ...).
 */
export async function decryptAuthorizationResponse(jwe: string, privateJwk: JWK): Promise<Record<string, unknown>> {
  if (typeof jwe !== "string" || jwe.split(".").length !== 5) {
    throw new AuthorizationResponseDecryptionError("response is not a compact JWE");
  }
  let plaintext: Uint8Array;
  try {
    const key = await importJWK(privateJwk, RESPONSE_ENCRYPTION_ALG);
    ({ plaintext } = await compactDecrypt(jwe, key, {
      keyManagementAlgorithms: [RESPONSE_ENCRYPTION_ALG],
      contentEncryptionAlgorithms: [...RESPONSE_ENCRYPTION_ENC_VALUES],
    }));
  } catch (error) {
    throw new AuthorizationResponseDecryptionError("response could not be decrypted", { cause: error });
  }
  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder().decode(plaintext));
  } catch {
    throw new AuthorizationResponseDecryptionError("decrypted response is not JSON");
  }
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    throw new AuthorizationResponseDecryptionError("decrypted response is not a JSON object");
  }
  return payload as Record<string, unknown>;
}
