import { samePublicKey } from "@attesto/protocol";
import { decodeIssuerSigned, MdocFormatError, parseIssuerSigned, verifyIssuerSigned } from "@attesto/protocol/mdoc";
import type { HolderKey } from "../dids/resolve-holder-key.js";
import { invalidCredential } from "../errors.js";
import type { VerifiedIssuedCredential } from "./verify-issued-credential.js";

/**
 * Checks an issued mdoc (`IssuerSigned`, base64url CBOR) before it is stored:
 * 1. it decodes (ISO 18013-5 structure, MSO inside `issuerAuth`);
 * 2. the MSO's `docType` is the configuration's `doctype`;
 * 3. `issuerAuth` verifies with the `x5chain` leaf's key and every element matches its digest (trust
 *    in that chain is the verifier's decision: a wallet has no list of issuing authorities);
 * 4. `deviceKeyInfo.deviceKey` is the holder's key; 5. the MSO is valid now.
 * Every failure is 400 `invalid_credential`. Stored claims are the elements per namespace, bytes
 * as base64url text, full-dates as `YYYY-MM-DD`.
 */
export async function verifyIssuedMdoc(
  deps: { now: () => Date },
  credential: string,
  expected: { doctype: string | undefined; holder: HolderKey },
): Promise<VerifiedIssuedCredential & { doctype: string }> {
  let decoded: ReturnType<typeof decodeIssuerSigned>;
  try {
    decoded = decodeIssuerSigned(credential);
  } catch (error) {
    if (error instanceof MdocFormatError) throw invalidCredential("the credential is not a well-formed mdoc");
    throw error;
  }
  if (expected.doctype !== undefined && decoded.docType !== expected.doctype) {
    throw invalidCredential("the mdoc's docType is not the credential configuration's doctype");
  }
  const [leaf] = decoded.x5chain;
  if (!leaf) throw invalidCredential("the mdoc's issuerAuth carries no x5chain");
  const failures = await verifyIssuerSigned(parseIssuerSigned(credential), {
    trustedCertificates: [leaf],
    now: deps.now(),
  });
  if (failures.length > 0) {
    const check = failures.find((failure) => failure.category !== "ISSUER_AUTH") ?? failures[0]!;
    throw invalidCredential(`the mdoc failed the check '${check.check}'`);
  }
  if (!samePublicKey(decoded.deviceKey as never, expected.holder.publicJwk as never)) {
    throw invalidCredential("the mdoc's device key is not the holder's key");
  }
  return {
    vct: decoded.docType,
    doctype: decoded.docType,
    issuerDid: "",
    claims: decoded.namespaces,
    issuedAt: new Date(decoded.validity.signed),
    expiresAt: new Date(decoded.validity.validUntil),
  };
}
