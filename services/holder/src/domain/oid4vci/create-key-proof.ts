import { importJWK, SignJWT } from "jose";
import type { HolderKey } from "../dids/resolve-holder-key.js";
import { invalidProof } from "../errors.js";
import type { CredentialConfigurationMetadata } from "./z-credential-offer.js";

/** `typ` of an OID4VCI key proof (OID4VCI 1.0 Appendix F.1). */
export const KEY_PROOF_TYP = "openid4vci-proof+jwt";

/**
 * How the proof names the holder key, from the configuration's `cryptographic_binding_methods_supported`:
 * the DID URL (`kid`) when DIDs (or the holder's DID method) are accepted or nothing is said,
 * else the bare key (`jwk`) when that is accepted.
 */
export function keyReferenceFor(configuration: CredentialConfigurationMetadata, holder: HolderKey): "kid" | "jwk" {
  const methods = configuration.cryptographic_binding_methods_supported;
  if (!methods) return "kid";
  const didMethod = holder.did.split(":").slice(0, 2).join(":");
  if (methods.some((method) => method === "did" || method === didMethod)) return "kid";
  // mso_mdoc (OID4VCI 1.0 A.2): the proof's jwk becomes the mdoc's device key (COSE_Key).
  if (methods.includes("cose_key")) return "jwk";
  if (methods.includes("jwk")) return "jwk";
  throw invalidProof(
    `the credential configuration binds credentials by ${methods.join(", ").slice(0, 100)}; the holder can bind by ${didMethod} or jwk`,
  );
}

/** The configuration must accept jwt proofs signed with the holder key's algorithm. */
export function checkProofAlgorithm(configuration: CredentialConfigurationMetadata, holder: HolderKey): void {
  const proofTypes = configuration.proof_types_supported;
  if (!proofTypes) return;
  const jwt = proofTypes.jwt;
  if (!jwt) throw invalidProof("the credential configuration does not accept jwt key proofs");
  const algorithms = jwt.proof_signing_alg_values_supported;
  if (algorithms && !algorithms.includes(holder.alg)) {
    throw invalidProof(
      `the credential configuration does not accept ${holder.alg} key proofs (accepts ${algorithms.join(", ").slice(0, 100)})`,
    );
  }
}

/**
 * The key proof (OID4VCI 1.0 Appendix F.1): header `typ`, `alg`, and `kid` (the holder's DID URL)
 * or `jwk`; payload `aud` (the credential issuer identifier), `iat`, `nonce` (the c_nonce). No
 * `iss`: the pre-authorized flow is anonymous.
 */
export async function createKeyProof(input: {
  holder: HolderKey;
  keyReference: "kid" | "jwk";
  audience: string;
  nonce: string | undefined;
  now: Date;
}): Promise<string> {
  const { holder } = input;
  const keyHeader = input.keyReference === "kid" ? { kid: holder.kid } : { jwk: holder.publicJwk };
  const key = await importJWK(holder.privateJwk, holder.alg);
  return new SignJWT({
    aud: input.audience,
    iat: Math.floor(input.now.getTime() / 1000),
    ...(input.nonce === undefined ? {} : { nonce: input.nonce }),
  })
    .setProtectedHeader({ typ: KEY_PROOF_TYP, alg: holder.alg, ...keyHeader } as never)
    .sign(key);
}
