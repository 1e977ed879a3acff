import { createHash } from "node:crypto";
import type { JwtSigner, PublicJwk } from "@attesto/protocol";
import { issueMdoc, type MdocStatusListReference } from "@attesto/protocol/mdoc";
import { InvalidProof } from "@attesto/runtime/errors";
import { mdocNamespacesOf } from "./mdoc-element-values.js";
import type { CredentialTypeInfo, JsonObject } from "./ports.js";

/** What one issuance yields, for either format: the credential and the key of its issuer's record. */
export interface IssuedArtifact {
  credential: string;
  /** Lowercase hex SHA-256 of what the issuer signed (for an mdoc: of the IssuerSigned's base64url). */
  issuerJwtSha256: string;
}

/**
 * One mdoc (OID4VCI 1.0 Appendix A.2): the offer's claims as data elements, the proof key as
 * `deviceKeyInfo.deviceKey`, `validityInfo` from `issuedAt` to `expiresAt`, the status list entry as
 * the MSO's `status`, signed by the tenant's X.509 key in key custody (the key never leaves it) with
 * the certificate chain as `x5chain`.
 */
export async function issueMdocCredential(input: {
  signer: JwtSigner;
  type: CredentialTypeInfo;
  claims: JsonObject;
  devicePublicJwk: PublicJwk;
  issuedAt: Date;
  expiresAt: Date;
  status: MdocStatusListReference;
}): Promise<IssuedArtifact> {
  const { signer, type, devicePublicJwk } = input;
  if (!("x5c" in signer.keyHeader) || signer.alg !== "ES256" || !type.doctype) {
    throw new Error("mdocs are issued with an ES256 X.509 signer and an mdoc type");
  }
  if (devicePublicJwk.kty !== "EC" || devicePublicJwk.crv !== "P-256") {
    throw new InvalidProof("an mdoc's device key must be a P-256 key: sign the proof with ES256");
  }
  const credential = await issueMdoc({
    docType: type.doctype,
    namespaces: mdocNamespacesOf(input.claims, type.schema),
    deviceKey: { ...devicePublicJwk },
    validity: { signed: input.issuedAt, validFrom: input.issuedAt, validUntil: input.expiresAt },
    status: input.status,
    certificates: signer.keyHeader.x5c.map((der) => new Uint8Array(Buffer.from(der, "base64"))),
    algorithm: "ES256",
    sign: (toBeSigned) => signer.sign(toBeSigned),
  });
  return { credential, issuerJwtSha256: createHash("sha256").update(credential).digest("hex") };
}
