/**
 * Interop, mdoc (ISO/IEC 18013-5 `mso_mdoc`): the independent implementation is the wallet. The
 * OpenWallet Foundation wallet client receives an mDL and an EU PID from the real platform
 * (OID4VCI 1.0 Appendix A.2: DPoP, a P-256 `jwk` proof, a base64url `IssuerSigned`); @auth0/mdl (not
 * the product's @owf/mdoc) verifies each against the platform's trust anchors, then presents only
 * the asked elements to the real verifier (OID4VP 1.0 Appendix B.2: direct_post for the mDL,
 * direct_post.jwt for the PID), which ends `completed` disclosing exactly those.
 */
import { CompactEncrypt, calculateJwkThumbprint, decodeJwt, importJWK, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  deviceResponseOf,
  type MdocClaim,
  oid4vpTranscriptBytes,
  presentWithIndependentWallet,
  verifyWithIndependentVerifier,
} from "../support/independent-mdoc.js";
import { didKeyOf, type WalletKey, walletKey } from "./support/keys.js";
import { type InteropPlatform, startInteropPlatform } from "./support/platform.js";
import { applyTenant, type Tenant } from "./support/tenant.js";
import { InteropWallet, receiveCredential } from "./support/wallet.js";

/** Ports 20281..20288 / 21281..21288: see test/interop/support/platform.ts for the offsets in use. */
const PORT_OFFSET = 12_200;

const MDL = "org.iso.18013.5.1.mDL";
const MDL_NS = "org.iso.18013.5.1";
const PID = "eu.europa.ec.eudi.pid.1";

interface MdocCase {
  name: string;
  doctype: string;
  namespace: string;
  elements: Record<string, unknown>;
  asked: string[];
  responseMode: "direct_post" | "direct_post.jwt";
}

const CASES: MdocCase[] = [
  {
    name: "mDL",
    doctype: MDL,
    namespace: MDL_NS,
    // issuing_country is the countryName of the platform's CAs (ISO 18013-5: verifiers match them).
    elements: {
      family_name: "Lovelace",
      given_name: "Ada",
      birth_date: "1815-12-10",
      issuing_country: "UT",
      age_over_18: true,
    },
    asked: ["age_over_18"],
    responseMode: "direct_post",
  },
  {
    name: "EU PID",
    doctype: PID,
    namespace: PID,
    elements: {
      family_name: "Lovelace",
      given_name: "Ada",
      birth_date: "1815-12-10",
      nationality: ["GB"],
      age_over_18: true,
    },
    asked: ["family_name", "age_over_18"],
    responseMode: "direct_post.jwt",
  },
];

async function call<T>(url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown }) {
  const response = await fetch(url, {
    method: init.method ?? "POST",
    headers: { "content-type": "application/json", ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as T };
}

/** The device key as @auth0/mdl signs with it: the private JWK. */
const privateJwkOf = (key: WalletKey) => key.privateKey.export({ format: "jwk" });

describe("mdoc interop: the OWF client receives, @auth0/mdl verifies and presents to our verifier", () => {
  let platform: InteropPlatform;
  let tenant: Tenant;
  let trustAnchors: string[];

  beforeAll(async () => {
    platform = await startInteropPlatform({ portOffset: PORT_OFFSET, label: "mdoc" });
    tenant = await applyTenant(platform, "mdoc");
    trustAnchors = await platform.trustAnchors();
  }, 180_000);
  afterAll(async () => {
    await platform?.close();
  });

  /** Offer (X.509 path) -> the OWF wallet receives it bound to a fresh P-256 key. */
  async function receive(mdocCase: MdocCase) {
    const offer = await call<{ deep_link: string }>(`${platform.url("credential-issuer")}/v1/offers`, {
      headers: { "x-api-key": tenant.apiKey },
      body: {
        credential: { config_id: mdocCase.doctype, claims: { [mdocCase.namespace]: mdocCase.elements } },
        flow: "pre-authorized",
      },
    });
    expect(offer.status, JSON.stringify(offer.body)).toBe(201);
    const device = walletKey("ES256");
    const received = await receiveCredential(new InteropWallet({ keys: [device] }), offer.body.deep_link, {
      dpop: true,
      proofKey: device,
      proofKeyReference: "jwk",
    });
    expect(
      received.issuerMetadata.credentialIssuer.credential_configurations_supported[mdocCase.doctype],
    ).toMatchObject({ format: "mso_mdoc", doctype: mdocCase.doctype });
    return { issuerSigned: received.credential, device };
  }

  /** The RP opens a session asking `asked`; the wallet fetches the signed request object. */
  async function openSession(mdocCase: MdocCase) {
    const rp = walletKey("EdDSA");
    const created = await call<{ session_id: string; request_uri: string }>(
      `${platform.url("verifier")}/v1/verifier/authorization-request`,
      {
        headers: { "x-api-key": tenant.apiKey },
        body: {
          dcql_query: {
            credentials: [
              {
                id: "doc",
                format: "mso_mdoc",
                meta: { doctype_value: mdocCase.doctype },
                claims: mdocCase.asked.map((element) => ({ path: [mdocCase.namespace, element] })),
              },
            ],
          },
          verifier_private_key: rp.privateKey.export({ format: "jwk" }).d,
          verifier_client_id: didKeyOf(rp),
          response_mode: mdocCase.responseMode,
        },
      },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const requestObject = await fetch(created.body.request_uri);
    expect(requestObject.status).toBe(200);
    const request = decodeJwt(await requestObject.text()) as {
      client_id: string;
      nonce: string;
      state: string;
      response_uri: string;
      client_metadata: { jwks?: { keys: JWK[] } };
    };
    return { sessionId: created.body.session_id, request };
  }

  for (const mdocCase of CASES) {
    it(`${mdocCase.name}: @auth0/mdl verifies what our issuer issued (chain to the platform root, digests, device key)`, async () => {
      const { issuerSigned, device } = await receive(mdocCase);
      const transcript = oid4vpTranscriptBytes({
        clientId: "x509_hash:independent",
        nonce: "n-1",
        responseUri: "https://independent.example/response",
      });
      const everything: MdocClaim[] = Object.keys(mdocCase.elements).map((element) => ({
        path: [mdocCase.namespace, element],
      }));
      const verified = await verifyWithIndependentVerifier({
        deviceResponse: await presentWithIndependentWallet({
          mdoc: deviceResponseOf(mdocCase.doctype, issuerSigned),
          docType: mdocCase.doctype,
          claims: everything,
          transcript,
          devicePrivateJwk: privateJwkOf(device),
        }),
        trustAnchors,
        transcript,
      });
      expect(verified.failed).toEqual([]);
      expect(verified.passed).toContain("Issuer certificate must be valid");
      expect(Object.keys(verified.elements[mdocCase.namespace] as object).sort()).toEqual(
        Object.keys(mdocCase.elements).sort(),
      );
      expect(verified.elements[mdocCase.namespace]).toMatchObject({
        family_name: "Lovelace",
        age_over_18: true,
      });
    });

    it(`${mdocCase.name}: @auth0/mdl as the wallet presents only ${mdocCase.asked.join(", ")} (${mdocCase.responseMode}); completed`, async () => {
      const { issuerSigned, device } = await receive(mdocCase);
      const { sessionId, request } = await openSession(mdocCase);
      const encryptionJwk = request.client_metadata.jwks?.keys[0];
      const presentation = await presentWithIndependentWallet({
        mdoc: deviceResponseOf(mdocCase.doctype, issuerSigned),
        docType: mdocCase.doctype,
        claims: mdocCase.asked.map((element) => ({ path: [mdocCase.namespace, element] })),
        transcript: oid4vpTranscriptBytes({
          clientId: request.client_id,
          nonce: request.nonce,
          responseUri: request.response_uri,
          ...(encryptionJwk ? { jwkThumbprint: await calculateJwkThumbprint(encryptionJwk, "sha256") } : {}),
        }),
        devicePrivateJwk: privateJwkOf(device),
      });
      const vpToken = { doc: [presentation] };
      const form: Record<string, string> =
        mdocCase.responseMode === "direct_post"
          ? { vp_token: JSON.stringify(vpToken), state: request.state }
          : {
              response: await new CompactEncrypt(
                new TextEncoder().encode(JSON.stringify({ vp_token: vpToken, state: request.state })),
              )
                .setProtectedHeader({ alg: "ECDH-ES", enc: "A128GCM", kid: encryptionJwk!.kid! })
                .encrypt(await importJWK(encryptionJwk!, "ECDH-ES")),
            };
      const posted = await fetch(request.response_uri, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(form).toString(),
      });
      expect(posted.status, await posted.clone().text()).toBe(200);
      const result = await call<{
        status: string;
        check_results: Array<{ check: string; status: string }>;
        presentation_metadata: { claims: unknown };
      }>(`${platform.url("verifier")}/v1/verifier/result/${sessionId}`, {
        method: "GET",
        headers: { "x-api-key": tenant.apiKey },
      });
      expect(result.body.check_results.filter((check) => check.status === "failed")).toEqual([]);
      expect(result.body.status).toBe("completed");
      expect(result.body.presentation_metadata.claims).toEqual({
        [mdocCase.namespace]: Object.fromEntries(
          mdocCase.asked.map((element) => [element, mdocCase.elements[element]]),
        ),
      });
    });
  }
});
