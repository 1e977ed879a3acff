/** The DID Configuration context (DIF Well Known DID Configuration). */
export const DID_CONFIGURATION_CONTEXT = "https://identity.foundation/.well-known/did-configuration/v1" as const;
const CREDENTIALS_V1_CONTEXT = "https://www.w3.org/2018/credentials/v1";

/** How long a Domain Linkage Credential is valid from the moment it is served. */
export const DOMAIN_LINKAGE_CREDENTIAL_VALIDITY_SECONDS = 365 * 24 * 60 * 60;

export interface DomainLinkageClaims {
  did: string;
  /** DID URL of the signing key: the JWT `kid`. */
  keyId: string;
  /** scheme://host[:port] */
  origin: string;
  now: Date;
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8").toString("base64url");
/** ISO 8601 without milliseconds, so the dates equal `nbf` and `exp` exactly. */
const isoSeconds = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString().replace(".000Z", "Z");

/**
 * A Domain Linkage Credential in the JWT proof format: header {alg EdDSA, kid, typ JWT}; payload
 * iss = sub = the DID, nbf/exp mirrored by issuanceDate/expirationDate, and the `vc` with the
 * origin. `sign` returns the raw Ed25519 signature over the JWS signing input.
 */
export async function createDomainLinkageCredential(
  claims: DomainLinkageClaims,
  sign: (signingInput: Uint8Array) => Promise<Uint8Array>,
): Promise<string> {
  const nbf = Math.floor(claims.now.getTime() / 1000);
  const exp = nbf + DOMAIN_LINKAGE_CREDENTIAL_VALIDITY_SECONDS;
  const header = { alg: "EdDSA", kid: claims.keyId, typ: "JWT" };
  const payload = {
    iss: claims.did,
    sub: claims.did,
    nbf,
    exp,
    vc: {
      "@context": [CREDENTIALS_V1_CONTEXT, DID_CONFIGURATION_CONTEXT],
      issuer: claims.did,
      issuanceDate: isoSeconds(nbf),
      expirationDate: isoSeconds(exp),
      type: ["VerifiableCredential", "DomainLinkageCredential"],
      credentialSubject: { id: claims.did, origin: claims.origin },
    },
  };
  const signingInput = `${base64url(header)}.${base64url(payload)}`;
  const signature = await sign(new TextEncoder().encode(signingInput));
  return `${signingInput}.${Buffer.from(signature).toString("base64url")}`;
}
