import { createHash, createPrivateKey, randomUUID, sign } from "node:crypto";
import { decodeIssuerSigned, issueMdoc, mdocFullDate } from "@attesto/protocol/mdoc";
import { Verifier } from "@auth0/mdl";
import { encode as cborEncode, Tag } from "cbor-x";
import { calculateJwkThumbprint, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HolderIdentity, p256DidKey } from "./support/holder-keys.js";
import { type Account, startTestHolder, type TestHolder } from "./support/test-holder.js";
import { startVerifierDouble, type VerifierDouble } from "./support/verifier-double.js";
import { createTestChain, type TestChain } from "./support/x509-chain.js";

const MDL = "org.iso.18013.5.1.mDL";
const NS = "org.iso.18013.5.1";

/** OID4VP 1.0 B.2.6.1 SessionTranscriptBytes, built here from the CDDL (not with the product's code). */
function transcriptBytes(clientId: string, nonce: string, responseUri: string, jwkThumbprint?: string): Buffer {
  const info = cborEncode([
    clientId,
    nonce,
    jwkThumbprint ? Buffer.from(jwkThumbprint, "base64url") : null,
    responseUri,
  ]);
  const handover = ["OpenID4VPHandover", createHash("sha256").update(info).digest()];
  return cborEncode(new Tag(cborEncode([null, null, handover]), 24));
}

/**
 * The holder presents a stored mdoc: only the requested elements, device-signed over the request's
 * transcript. The DeviceResponse it posts is verified by @auth0/mdl's Verifier (an implementation
 * we did not write), against a transcript computed independently.
 */
describe("OID4VP: the holder presents mdocs (mso_mdoc)", () => {
  let holder: TestHolder;
  let verifier: VerifierDouble;
  let account: Account;
  let identity: HolderIdentity;
  let chain: TestChain;
  let mdlId: string;

  beforeAll(async () => {
    holder = await startTestHolder();
    verifier = await startVerifierDouble(holder.ledger);
    account = await holder.account();
    identity = p256DidKey();
    // ISO/IEC 18013-5 verifiers want the issuing authority's country (C) in the certificates.
    chain = await createTestChain("Test Document Signer, C=GB", { rootName: "C=GB, CN=Test IACA" });
    const signingKey = createPrivateKey({ key: chain.leafPrivateJwk, format: "jwk" });
    const namespaces = {
      family_name: "Lovelace",
      given_name: "Ada",
      birth_date: mdocFullDate("1815-12-10"),
      age_over_18: true,
    };
    const now = Date.now();
    const issuerSigned = await issueMdoc({
      docType: MDL,
      namespaces: { [NS]: namespaces },
      deviceKey: identity.publicJwk,
      validity: {
        signed: new Date(now - 60_000),
        validFrom: new Date(now - 60_000),
        validUntil: new Date(now + 86_400_000),
      },
      certificates: [new Uint8Array(chain.leaf.rawData)],
      algorithm: "ES256",
      sign: async (toBeSigned) =>
        new Uint8Array(sign("sha256", toBeSigned, { key: signingKey, dsaEncoding: "ieee-p1363" })),
    });
    mdlId = randomUUID();
    const decoded = decodeIssuerSigned(issuerSigned);
    await holder.deps.credentials.insert({
      id: mdlId,
      userUuid: account.uuid,
      format: "mso_mdoc",
      vct: decoded.docType,
      issuerDid: "",
      credentialIssuer: "https://issuer.example",
      credentialConfigurationId: "mdl",
      holderDid: identity.did,
      issuedAt: new Date(now - 60_000),
      expiresAt: new Date(now + 86_400_000),
      status: "active",
      createdAt: new Date(now),
      raw: issuerSigned,
      claims: decoded.namespaces,
      reference: undefined,
      issuerCredentialId: null,
      issuerOfferId: null,
    });
  });
  afterAll(async () => {
    await verifier.close();
    await holder.close();
  });

  const mdlQuery = {
    credentials: [
      {
        id: "mdl",
        format: "mso_mdoc",
        meta: { doctype_value: MDL },
        claims: [{ path: [NS, "age_over_18"], intent_to_retain: false }],
      },
    ],
  };

  for (const responseMode of ["direct_post", "direct_post.jwt"] as const) {
    it(`matches the mdoc and presents age_over_18 only (${responseMode}); @auth0/mdl verifies the DeviceResponse`, async () => {
      const request = verifier.createRequest({ dcqlQuery: mdlQuery, responseMode });
      const details = await holder.app.inject({
        method: "POST",
        url: "/v1/oid4vp/request-details",
        headers: account.headers,
        payload: { authorization_request_uri: request.link },
      });
      expect(details.statusCode).toBe(200);
      expect(details.json().matching_credentials).toMatchObject([
        { credential_id: mdlId, query_id: "mdl", vct: MDL, claims: { [NS]: { age_over_18: true } } },
      ]);
      const presented = await holder.app.inject({
        method: "POST",
        url: "/v1/oid4vp/presentation",
        headers: account.headers,
        payload: {
          authorization_request_uri: request.link,
          selected_credentials: [{ credential_id: mdlId, query_id: "mdl" }],
          holder_did: identity.did,
          private_key: identity.privateKey,
        },
      });
      expect([presented.statusCode, presented.json().success]).toEqual([200, true]);
      const submission = verifier.submissions.at(-1)!;
      expect(submission.mode).toBe(responseMode);
      const clientMetadataJwk = details.json().client_metadata.jwks?.keys?.[0] as JWK | undefined;
      const thumbprint = clientMetadataJwk ? await calculateJwkThumbprint(clientMetadataJwk, "sha256") : undefined;
      const deviceResponse = Buffer.from(submission.presentations.mdl![0]!, "base64url");
      const mdoc = await new Verifier([chain.root.toString("pem")]).verify(deviceResponse, {
        encodedSessionTranscript: transcriptBytes(
          request.clientId,
          request.nonce,
          `${verifier.baseUrl}/response`,
          thumbprint,
        ),
      });
      expect(mdoc.documents[0]!.getIssuerNameSpace(NS)).toEqual({ age_over_18: true });
      // Signed for this request only: another nonce's transcript does not verify.
      await expect(
        new Verifier([chain.root.toString("pem")]).verify(deviceResponse, {
          encodedSessionTranscript: transcriptBytes(
            request.clientId,
            "another-nonce",
            `${verifier.baseUrl}/response`,
            thumbprint,
          ),
        }),
      ).rejects.toThrow();
    });
  }

  it("discloses the elements chosen with disclosed_claims as [namespace, element], and refuses other forms", async () => {
    const query = {
      credentials: [
        { ...mdlQuery.credentials[0]!, claims: [{ path: [NS, "age_over_18"] }, { path: [NS, "given_name"] }] },
      ],
    };
    const request = verifier.createRequest({ dcqlQuery: query });
    const present = (disclosed: string[]) =>
      holder.app.inject({
        method: "POST",
        url: "/v1/oid4vp/presentation",
        headers: account.headers,
        payload: {
          authorization_request_uri: request.link,
          selected_credentials: [{ credential_id: mdlId, query_id: "mdl", disclosed_claims: disclosed }],
          holder_did: identity.did,
          private_key: identity.privateKey,
        },
      });
    const refused = await present([NS]);
    expect([refused.statusCode, refused.json().error]).toEqual([400, "no_matching_credentials"]);
    const accepted = await present([JSON.stringify([NS, "given_name"]), JSON.stringify([NS, "age_over_18"])]);
    expect(accepted.statusCode).toBe(200);
    const deviceResponse = Buffer.from(verifier.submissions.at(-1)!.presentations.mdl![0]!, "base64url");
    const mdoc = await new Verifier([chain.root.toString("pem")]).verify(deviceResponse, {
      encodedSessionTranscript: transcriptBytes(request.clientId, request.nonce, `${verifier.baseUrl}/response`),
    });
    expect(mdoc.documents[0]!.getIssuerNameSpace(NS)).toEqual({ given_name: "Ada", age_over_18: true });
  });
});
