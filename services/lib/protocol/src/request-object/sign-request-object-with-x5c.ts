import { REQUEST_OBJECT_TYP, type RequestObjectClaims } from "./sign-request-object.js";

/** Signs a JWS signing input elsewhere (key custody): the raw ES256 signature, r || s (64 bytes). */
export type Es256Signer = (signingInput: Uint8Array) => Promise<Uint8Array>;

const ES256_SIGNATURE_BYTES = 64;

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/**
 * A request object signed ES256 by a key that never leaves its custodian: header `alg` ES256,
 * `typ` oauth-authz-req+jwt and `x5c` (standard base64 DER, leaf first, no trust anchor), as HAIP
 * and OID4VP 1.0 §5.9.3 ask of x509_hash and x509_san_dns verifiers. The signer gets the exact
 * signing input (ASCII of `header.payload`) and answers the raw signature.
 */
export async function signRequestObjectWithX5c(
  claims: RequestObjectClaims,
  x5c: readonly string[],
  sign: Es256Signer,
): Promise<string> {
  if (x5c.length === 0) throw new Error("x5c must hold at least the leaf certificate");
  const signingInput = `${base64url({ alg: "ES256", typ: REQUEST_OBJECT_TYP, x5c })}.${base64url(claims)}`;
  const signature = await sign(new TextEncoder().encode(signingInput));
  if (signature.length !== ES256_SIGNATURE_BYTES) throw new Error("the ES256 signature is not 64 bytes (r || s)");
  return `${signingInput}.${Buffer.from(signature).toString("base64url")}`;
}
