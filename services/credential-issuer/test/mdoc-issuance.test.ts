import { issuerConfigurationV1 } from "@attesto/proto";
import { decodeIssuerSigned } from "@attesto/protocol/mdoc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  deviceResponseOf,
  presentWithIndependentWallet,
  verifyWithIndependentVerifier,
} from "../../../test/support/independent-mdoc.js";
import { issuerServiceAs } from "./support/issuer-service.js";
import { addMdlType, MDL_DOCTYPE, MDL_NAMESPACE, mdlClaims } from "./support/mdl-type.fixture.js";
import { ISSUER_URL, startTestIssuer, type TestIssuer } from "./support/test-issuer.js";
import {
  createOffer,
  didIssuer,
  ed25519Key,
  fetchNonce,
  keyProof,
  p256Key,
  postCredential,
  redeemedOffer,
} from "./support/wallet.js";
import { createTestChain } from "./support/x509-chain.js";

/**
 * mso_mdoc issuance (OID4VCI 1.0 Appendix A.2) at the issuer's routes: metadata, offers validated
 * against an mdoc type, and IssuerSigned credentials signed through key custody, checked by an
 * independent implementation (@auth0/mdl) acting as the verifier.
 */
describe("mso_mdoc issuance", () => {
  let issuer: TestIssuer;
  const mdlOffer = { credential: { config_id: MDL_DOCTYPE, claims: mdlClaims } };

  beforeAll(async () => {
    issuer = await startTestIssuer();
    await addMdlType(issuer.doubles as never, createTestChain);
  });
  afterAll(async () => {
    await issuer.close();
  });

  async function issueMdl(keys = [p256Key(), p256Key()]) {
    const { grant } = await redeemedOffer(issuer, mdlOffer);
    const token = await issuer.accessToken({ offerId: grant.offerId, credentialConfigurationIds: [MDL_DOCTYPE] });
    const nonce = await fetchNonce(issuer);
    const proofs = await Promise.all(keys.map((key) => keyProof({ nonce, key, now: issuer.clock.now })));
    const response = await postCredential(issuer, {
      token,
      body: { credential_configuration_id: MDL_DOCTYPE, proofs: { jwt: proofs } },
    });
    return { response, keys };
  }

  it("advertises the mDL as an mso_mdoc configuration", async () => {
    const metadata = (
      await issuer.app.inject({ method: "GET", url: "/.well-known/openid-credential-issuer/acme" })
    ).json();
    const configuration = metadata.credential_configurations_supported[MDL_DOCTYPE];
    expect(configuration).toMatchObject({
      format: "mso_mdoc",
      doctype: MDL_DOCTYPE,
      credential_signing_alg_values_supported: [-7],
      cryptographic_binding_methods_supported: ["cose_key"],
      proof_types_supported: { jwt: { proof_signing_alg_values_supported: ["ES256"] } },
    });
    expect(configuration).not.toHaveProperty("vct");
    expect(configuration.credential_metadata.claims).toContainEqual({
      path: [MDL_NAMESPACE, "family_name"],
      mandatory: true,
    });
    expect(metadata.credential_configurations_supported["university-diploma"].format).toBe("dc+sd-jwt");
  });

  it("lists mdoc configurations only where the tenant can issue them: not when its issuer signs with DIDs", async () => {
    const operator = issuerServiceAs(issuer, "operator");
    const listed = async () =>
      Object.keys(
        (await issuer.app.inject({ method: "GET", url: "/.well-known/openid-credential-issuer/acme" })).json()
          .credential_configurations_supported,
      );
    const declare = (signingMode: issuerConfigurationV1.SigningMode) =>
      operator.applyIssuerConfiguration({
        configuration: {
          tenant: "acme",
          issuerName: "attesto-tenants/acme",
          credentialConfigurations: [{ id: "university-diploma" }, { id: MDL_DOCTYPE }],
          signingMode,
        },
      });
    try {
      await declare(issuerConfigurationV1.SigningMode.DID);
      expect(await listed()).toEqual(["university-diploma"]);
      // What it does not list it refuses to offer.
      expect((await createOffer(issuer, mdlOffer)).statusCode).toBe(400);
      await declare(issuerConfigurationV1.SigningMode.X509);
      expect((await listed()).sort()).toEqual([MDL_DOCTYPE, "university-diploma"].sort());
    } finally {
      await operator.deleteIssuerConfiguration({ tenant: "acme" });
    }
  });

  it("refuses an offer whose elements fail the type, naming every failing element", async () => {
    const response = await createOffer(issuer, {
      credential: {
        config_id: MDL_DOCTYPE,
        claims: {
          [MDL_NAMESPACE]: {
            given_name: 7,
            birth_date: "yesterday",
            portrait: "not base64url!",
            eye_color: "blue",
          },
        },
      },
    });
    expect(response.statusCode).toBe(400);
    const fields = (response.json().errors as Array<{ field: string }>).map((error) => error.field).sort();
    expect(fields).toEqual(
      [
        `credential.claims.${MDL_NAMESPACE}.birth_date`,
        `credential.claims.${MDL_NAMESPACE}`,
        `credential.claims.${MDL_NAMESPACE}.family_name`,
        `credential.claims.${MDL_NAMESPACE}.given_name`,
        `credential.claims.${MDL_NAMESPACE}.portrait`,
      ].sort(),
    );
    expect(response.body).not.toContain("not base64url!");
  });

  it("refuses an mdoc offer on the DID signing path", async () => {
    const response = await createOffer(issuer, { ...mdlOffer, ...didIssuer(ed25519Key()) });
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toContain("X.509");
  });

  it("issues a batch of IssuerSigned mdocs: distinct MSOs, the proof keys as device keys, a status reference", async () => {
    const { response, keys } = await issueMdl();
    expect(response.statusCode).toBe(200);
    const credentials = (response.json().credentials as Array<{ credential: string }>).map((c) => c.credential);
    expect(credentials).toHaveLength(2);
    const decoded = credentials.map(decodeIssuerSigned);
    for (const [index, mdoc] of decoded.entries()) {
      expect(mdoc.docType).toBe(MDL_DOCTYPE);
      expect(mdoc.deviceKey).toEqual(keys[index]!.publicJwk);
      expect(mdoc.namespaces[MDL_NAMESPACE]).toEqual({
        ...mdlClaims[MDL_NAMESPACE],
        driving_privileges: [{ vehicle_category_code: "B", issue_date: "2010-05-01" }],
      });
      expect(mdoc.status?.uri.startsWith(`${ISSUER_URL}/status-lists/`)).toBe(true);
      expect(new Date(mdoc.validity.validUntil).getTime()).toBeGreaterThan(new Date(mdoc.validity.validFrom).getTime());
    }
    expect(decoded[0]!.status).not.toEqual(decoded[1]!.status);
    expect(credentials[0]).not.toBe(credentials[1]);
    expect(issuer.doubles.trustRegistry.signCalls).toBeGreaterThanOrEqual(2);
  });

  it("issues mdocs the independent library verifies: issuer signature, x5chain to the root, digests, device key", async () => {
    const { response, keys } = await issueMdl([p256Key()]);
    const { credential } = (response.json().credentials as Array<{ credential: string }>)[0]!;
    const root = (await issuer.doubles.trustRegistry.chainOf("acme")).root;
    const transcript = Buffer.from(`d8184c83f6f668${Buffer.from("handover").toString("hex")}`, "hex");
    const presented = await presentWithIndependentWallet({
      mdoc: deviceResponseOf(MDL_DOCTYPE, credential),
      docType: MDL_DOCTYPE,
      claims: [{ path: [MDL_NAMESPACE, "age_over_18"] }, { path: [MDL_NAMESPACE, "issuing_country"] }],
      transcript,
      devicePrivateJwk: keys[0]!.privateJwk,
    });
    const verified = await verifyWithIndependentVerifier({
      deviceResponse: presented,
      trustAnchors: [root.toString("pem")],
      transcript,
    });
    expect(verified.failed).toEqual([]);
    expect(verified.passed).toContain("Issuer certificate must be valid");
    expect(verified.elements).toEqual({ [MDL_NAMESPACE]: { age_over_18: true, issuing_country: "UT" } });
  });

  it("refuses an Ed25519 proof for an mdoc (device keys are P-256) with invalid_proof", async () => {
    const { response } = await issueMdl([ed25519Key()]);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: "invalid_proof" });
  });
});
