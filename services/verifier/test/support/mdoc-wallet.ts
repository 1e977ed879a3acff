import { Document, MDoc } from "@auth0/mdl";
import { cborDecode as a0Decode, cborEncode as a0Encode, DataItem } from "@auth0/mdl/lib/cbor/index.js";
import { importJWK } from "jose";
import {
  dcApiTranscriptBytes,
  type MdocClaim,
  oid4vpTranscriptBytes,
  presentWithIndependentWallet,
} from "../../../../test/support/independent-mdoc.js";
import { holderKey, type PrivateJwk, type TestIssuer } from "./credentials.js";
import type { OpenedSession } from "./test-verifier.js";

/**
 * An independent mdoc wallet for the verifier's tests: mdocs issued and presented by @auth0/mdl (not
 * the product's @owf/mdoc), device-signed over SessionTranscripts built from the specification's CDDL
 * (test/support/independent-mdoc.ts), so the verifier's transcript is checked against an independent
 * computation.
 */

export const MDL_DOCTYPE = "org.iso.18013.5.1.mDL";
export const MDL_NAMESPACE = "org.iso.18013.5.1";

export const MDL_ELEMENTS = {
  family_name: "Lovelace",
  given_name: "Ada",
  birth_date: "1815-12-10",
  issuing_country: "GB",
  age_over_18: true,
  age_over_21: true,
};

export { dcApiTranscriptBytes, oid4vpTranscriptBytes };

export interface IssuedMdoc {
  /** The encoded MDoc (the issuer's output, @auth0/mdl's IssuerSigned documents). */
  mdoc: Buffer;
  holder: ReturnType<typeof holderKey>;
}

/** An mdoc issued by @auth0/mdl, signed by an X.509 test issuer (x5chain = its x5c). */
export async function issueMdoc(
  issuer: TestIssuer,
  options: {
    docType?: string;
    namespace?: string;
    elements?: Record<string, unknown>;
    validFrom?: Date;
    validUntil?: Date;
    signed?: Date;
    /** A Token Status List reference put into the MSO (`status: {status_list: {idx, uri}}`). */
    status?: { idx: number; uri: string };
  } = {},
): Promise<IssuedMdoc> {
  const holder = holderKey();
  const signed = options.signed ?? new Date(Date.now() - 60_000);
  const document = await new Document(options.docType ?? MDL_DOCTYPE)
    .addIssuerNameSpace(options.namespace ?? MDL_NAMESPACE, options.elements ?? MDL_ELEMENTS)
    .useDigestAlgorithm("SHA-256")
    .addValidityInfo({
      signed,
      validFrom: options.validFrom ?? signed,
      validUntil: options.validUntil ?? new Date(signed.getTime() + 365 * 24 * 3600_000),
    })
    .addDeviceKeyInfo({ deviceKey: holder.publicJwk as never })
    .sign({
      issuerPrivateKey: issuer.privateJwk as never,
      issuerCertificate: (issuer.header.x5c as string[]).map((der) => Buffer.from(der, "base64")) as never,
      alg: "ES256",
    });
  if (options.status) {
    // @auth0/mdl has no status member: add it to the MSO and sign it again with the issuer's key.
    const auth = document.issuerSigned.issuerAuth;
    const mso = (a0Decode(auth.payload) as DataItem<Map<string, unknown>>).data;
    mso.set("status", new Map([["status_list", new Map<string, unknown>(Object.entries(options.status))]]));
    const key = await importJWK(issuer.privateJwk as never, "ES256");
    const x5chain = (issuer.header.x5c as string[]).map((der) => Buffer.from(der, "base64"));
    // The library's IssuerAuth (a cose-kit Sign1), reached through the instance: it is not exported.
    const IssuerAuth = auth.constructor as unknown as {
      sign(protectedHeader: object, unprotectedHeader: object, payload: Uint8Array, key: unknown): Promise<typeof auth>;
    };
    document.issuerSigned.issuerAuth = await IssuerAuth.sign(
      { alg: "ES256" },
      { x5chain },
      a0Encode(DataItem.fromData(mso)),
      key,
    );
  }
  return { mdoc: new MDoc([document]).encode(), holder };
}

/**
 * @auth0/mdl as the wallet (test/support/independent-mdoc.ts): a base64url DeviceResponse disclosing `claims`,
 * device-signed over the session's transcript (or `transcript`, to sign another session's).
 */
export async function presentMdoc(
  issued: IssuedMdoc,
  session: OpenedSession,
  options: {
    claims?: MdocClaim[];
    docType?: string;
    transcript?: Buffer;
    jwkThumbprint?: string;
    deviceKey?: PrivateJwk;
  } = {},
): Promise<string> {
  const claims = options.claims ?? [{ path: [MDL_NAMESPACE, "age_over_18"] }];
  const transcript =
    options.transcript ??
    oid4vpTranscriptBytes({
      clientId: session.request.client_id,
      nonce: session.request.nonce,
      responseUri: session.request.response_uri,
      ...(options.jwkThumbprint ? { jwkThumbprint: options.jwkThumbprint } : {}),
    });
  return presentWithIndependentWallet({
    mdoc: issued.mdoc,
    docType: options.docType ?? MDL_DOCTYPE,
    claims,
    transcript,
    devicePrivateJwk: options.deviceKey ?? issued.holder.privateJwk,
  });
}

/** A DCQL query for an mDL disclosing `elements` (age_over_18 by default). */
export const mdlQuery = (elements: string[] = ["age_over_18"], overrides: Record<string, unknown> = {}) => ({
  credentials: [
    {
      id: "mdl",
      format: "mso_mdoc",
      meta: { doctype_value: MDL_DOCTYPE },
      claims: elements.map((element) => ({ path: [MDL_NAMESPACE, element], intent_to_retain: false })),
      ...overrides,
    },
  ],
});
