import { createHash, X509Certificate } from "node:crypto";
import type { TrustRegistryDependencies } from "./ports.js";

/** A trust anchor as a JWK (RFC 7517 §4.7 `x5c`, §4.9 `x5t#S256`): its public key and the certificate itself. */
export interface TrustAnchorJwk {
  kty: string;
  crv?: string;
  x?: string;
  y?: string;
  /** The anchor's SHA-256 certificate thumbprint (base64url): a stable name for it. */
  kid: string;
  /** Standard base64 DER of the root certificate (one entry: it is self-signed). */
  x5c: [string];
  "x5t#S256": string;
}

export interface PublishedTrustAnchors {
  jwks: { keys: TrustAnchorJwk[] };
  /** The same certificates as a PEM bundle. */
  pem: string;
}

function toJwk(base64Der: string): TrustAnchorJwk {
  const der = Buffer.from(base64Der, "base64");
  const certificate = new X509Certificate(der);
  const { kty, crv, x, y } = certificate.publicKey.export({ format: "jwk" });
  const thumbprint = createHash("sha256").update(der).digest("base64url");
  return {
    kty: kty as string,
    ...(crv ? { crv } : {}),
    ...(x ? { x } : {}),
    ...(y ? { y } : {}),
    kid: thumbprint,
    x5c: [base64Der],
    "x5t#S256": thumbprint,
  };
}

const pemOf = (base64Der: string) =>
  `-----BEGIN CERTIFICATE-----\n${base64Der.match(/.{1,64}/g)?.join("\n")}\n-----END CERTIFICATE-----\n`;

/**
 * The platform's X.509 trust anchors: the root(s) that tenants' platform-issued signing certificates
 * chain to (the `x5c` of X.509-path credentials stops just below one). What a relying party
 * configures to verify those credentials. Tenants' own imported roots are theirs to publish.
 */
export async function publishTrustAnchors(
  domain: Pick<TrustRegistryDependencies, "custody">,
): Promise<PublishedTrustAnchors> {
  const anchors = await domain.custody.trustAnchors();
  return { jwks: { keys: anchors.map(toJwk) }, pem: anchors.map(pemOf).join("") };
}
