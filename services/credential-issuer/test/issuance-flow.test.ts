import { createPublicKey, verify } from "node:crypto";
import { publicJwkFromDidKey } from "@attesto/protocol";
import { SDJwtVcInstance } from "@sd-jwt/sd-jwt-vc";
import { decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DIPLOMA_VCT, diplomaClaims } from "./support/credential-type.fixture.js";
import { decodeCredential, sha256Hasher } from "./support/sd-jwt.js";
import { ISSUER_ID, startTestIssuer, type TestIssuer } from "./support/test-issuer.js";
import {
  createOffer,
  didKeyOf,
  ed25519Key,
  fetchNonce,
  type HolderKey,
  keyProof,
  p256Key,
  postCredential,
  postCredentialWithDpop,
  thumbprintOf,
} from "./support/wallet.js";
import { x509 } from "./support/x509-chain.js";

/**
 * An independent SD-JWT VC verifier (@sd-jwt/sd-jwt-vc) over a node:crypto public key. It also
 * checks the credential's status: it fetches the Status List Token at `status.status_list.uri`
 * (here through the issuer app), verifies it with the same key and refuses any status but VALID.
 */
function verifierFor(publicJwk: object, alg: "EdDSA" | "ES256", issuer?: TestIssuer) {
  const key = createPublicKey({ key: publicJwk as never, format: "jwk" });
  return new SDJwtVcInstance({
    hasher: sha256Hasher,
    statusListFetcher: async (uri) => {
      if (!issuer) throw new Error("no issuer to fetch the status list from");
      const response = await issuer.app.inject({ method: "GET", url: new URL(uri).pathname });
      if (response.statusCode !== 200) throw new Error(`status list fetch failed: ${response.statusCode}`);
      return response.body;
    },
    statusValidator: async (status) => {
      if (status !== 0) throw new Error(`credential status is ${status}`);
    },
    verifier: (data, signature) =>
      verify(
        alg === "EdDSA" ? null : "sha256",
        Buffer.from(data),
        alg === "EdDSA" ? key : { key, dsaEncoding: "ieee-p1363" },
        Buffer.from(signature, "base64url"),
      ),
  });
}

const ONE_YEAR = 365 * 24 * 3600;
const STATUS_LIST_URI = /^https:\/\/issuer\.example\/status-lists\/acme\/[0-9a-f-]{36}$/;

/** The verified payload of a diploma issued at `now` to `holder`'s key: every disclosure applied. */
const diplomaPayload = (now: number, holder: HolderKey) => ({
  iss: ISSUER_ID,
  iat: now,
  exp: now + ONE_YEAR,
  vct: DIPLOMA_VCT,
  cnf: { jwk: holder.publicJwk },
  status: { status_list: { idx: expect.any(Number), uri: expect.stringMatching(STATUS_LIST_URI) } },
  ...diplomaClaims,
});

describe("issuance end to end inside the service (offer -> document -> grant -> nonce -> credential)", () => {
  let issuer: TestIssuer;
  beforeAll(async () => {
    issuer = await startTestIssuer();
  });
  afterAll(async () => {
    await issuer.close();
  });

  /** What a wallet does with a credential_offer_uri: fetch it, redeem the code at the AS (GrantService). */
  async function walletRedeems(offerUri: string, dpopKey?: HolderKey) {
    const document = (await issuer.app.inject({ method: "GET", url: new URL(offerUri).pathname })).json();
    expect(document.credential_issuer).toBe(ISSUER_ID);
    const metadata = (
      await issuer.app.inject({ method: "GET", url: "/.well-known/openid-credential-issuer/acme" })
    ).json();
    expect(metadata.credential_configurations_supported[document.credential_configuration_ids[0]]).toBeDefined();
    const code = document.grants["urn:ietf:params:oauth:grant-type:pre-authorized_code"]["pre-authorized_code"];
    const { grant } = await issuer.grants.redeemPreAuthorizedCode({ preAuthorizedCode: code });
    // The authorization server binds the token when the wallet sent a DPoP proof.
    const token = await issuer.accessToken({
      tenant: grant!.tenant,
      offerId: grant!.offerId,
      credentialConfigurationIds: grant!.credentialConfigurationIds,
      dpopRequired: grant!.dpopRequired,
      ...(dpopKey ? { jkt: await thumbprintOf(dpopKey) } : {}),
    });
    return { grant: grant!, token, configurationId: document.credential_configuration_ids[0] as string };
  }

  async function credentialRequest(configurationId: string, holder: HolderKey, kid?: string) {
    const nonce = await fetchNonce(issuer);
    return {
      credential_configuration_id: configurationId,
      proofs: { jwt: [await keyProof({ key: holder, nonce, kid, now: issuer.clock.now })] },
    };
  }

  it("DID path: an EdDSA credential with kid = the issuer's did:ledger key, verified independently", async () => {
    const issuerKey = ed25519Key();
    const issuerDid = "did:ledger:FlowIssuer1";
    issuer.doubles.ledger.addDid(issuerDid, issuerKey.publicJwk);
    const created = await createOffer(issuer, { issuer_did: issuerDid, issuer_private_key: issuerKey.privateJwk.d });
    expect(created.statusCode).toBe(201);
    const { grant, token, configurationId } = await walletRedeems(created.json().credential_offer_uri);
    expect(grant.dpopRequired).toBe(false);

    const holder = ed25519Key();
    const holderDid = didKeyOf(holder);
    const response = await postCredential(issuer, {
      token,
      body: await credentialRequest(configurationId, holder, `${holderDid}#${holderDid.slice(8)}`),
    });
    expect(response.statusCode).toBe(200);
    const credential = response.json().credentials[0].credential as string;

    const issuerJwt = credential.split("~")[0]!;
    expect(decodeProtectedHeader(issuerJwt)).toEqual({ typ: "dc+sd-jwt", kid: `${issuerDid}#key-1`, alg: "EdDSA" });
    // The verifier resolves kid through the DID document, as any verifier would.
    const document = issuer.doubles.ledger.documents.get(issuerDid)!.document as {
      verificationMethod: Array<{ id: string; publicKeyJwk: object }>;
    };
    const method = document.verificationMethod.find((m) => m.id === `${issuerDid}#key-1`)!;
    const now = Math.floor(issuer.clock.now.getTime() / 1000);
    const { payload } = await verifierFor(method.publicKeyJwk, "EdDSA", issuer).verify(credential, {
      currentDate: now,
    });
    expect(payload).toEqual(diplomaPayload(now, holder));

    const decoded = await decodeCredential(credential);
    const signedPayload = decoded.jwt.payload as Record<string, unknown>;
    expect(signedPayload._sd_alg).toBe("sha-256");
    expect(Object.keys(signedPayload).sort()).toEqual(["_sd", "_sd_alg", "cnf", "exp", "iat", "iss", "status", "vct"]);
    expect(
      decoded.disclosures
        .map((d) => d.key)
        .filter(Boolean)
        .sort(),
    ).toEqual(
      [
        "awarded_on",
        "birth_date",
        "courses",
        "degree",
        "family_name",
        "given_name",
        "grade",
        "name",
        "title",
        "type",
      ].sort(),
    );
    for (const disclosure of decoded.disclosures) expect(Buffer.from(disclosure.salt, "base64url")).toHaveLength(16);
    // did:key holders resolve without a ledger, and the cnf key is the one the proof named.
    expect(publicJwkFromDidKey(holderDid)).toEqual(holder.publicJwk);
    // A credential signed with the issuer's key cannot be passed off under another key.
    await expect(
      verifierFor(ed25519Key().publicJwk, "EdDSA").verify(credential, { currentDate: now }),
    ).rejects.toThrow();
  });

  it("X.509 path: an ES256 credential signed in key custody with an x5c chain, over a DPoP-bound token", async () => {
    const created = await createOffer(issuer);
    const dpopKey = p256Key();
    const { grant, token, configurationId } = await walletRedeems(created.json().credential_offer_uri, dpopKey);
    expect(grant.dpopRequired).toBe(true);

    const holder = p256Key();
    const signCalls = issuer.doubles.trustRegistry.signCalls;
    const response = await postCredentialWithDpop(issuer, {
      token,
      key: dpopKey,
      body: await credentialRequest(configurationId, holder),
    });
    expect(response.statusCode).toBe(200);
    expect(issuer.doubles.trustRegistry.signCalls).toBe(signCalls + 1);
    const credential = response.json().credentials[0].credential as string;

    const header = decodeProtectedHeader(credential.split("~")[0]!);
    expect(Object.keys(header).sort()).toEqual(["alg", "typ", "x5c"]);
    expect(header).toMatchObject({ typ: "dc+sd-jwt", alg: "ES256" });
    const chain = issuer.doubles.trustRegistry.chains.get("acme")!;
    expect(header.x5c).toEqual(chain.x5c);
    expect(header.x5c).not.toContain(chain.trustAnchor);

    // The chain, checked with @peculiar/x509: the leaf is issued by the trust anchor and is not self-signed.
    const leaf = new x509.X509Certificate(Buffer.from(header.x5c![0]!, "base64"));
    const anchor = new x509.X509Certificate(Buffer.from(chain.trustAnchor, "base64"));
    expect(await leaf.verify({ publicKey: anchor.publicKey, signatureOnly: true })).toBe(true);
    expect(await leaf.isSelfSigned()).toBe(false);
    expect(leaf.issuer).toBe(anchor.subject);
    const builder = new x509.X509ChainBuilder({ certificates: [anchor] });
    const built = await builder.build(leaf);
    expect(built.map((c) => c.subject)).toEqual([leaf.subject, anchor.subject]);

    // The credential verifies with the leaf's public key, and carries cnf.jwk = the proof key.
    const leafJwk = await crypto.subtle.exportKey("jwk", await leaf.publicKey.export());
    const now = Math.floor(issuer.clock.now.getTime() / 1000);
    const { payload } = await verifierFor(leafJwk, "ES256", issuer).verify(credential, { currentDate: now });
    expect(payload).toEqual(diplomaPayload(now, holder));
  });

  it("caches the tenant's signing certificate across credentials", async () => {
    const before = issuer.doubles.trustRegistry.getSigningCertificateCalls;
    for (let i = 0; i < 2; i++) {
      const created = await createOffer(issuer);
      const dpopKey = p256Key();
      const { token, configurationId } = await walletRedeems(created.json().credential_offer_uri, dpopKey);
      const response = await postCredentialWithDpop(issuer, {
        token,
        key: dpopKey,
        body: await credentialRequest(configurationId, p256Key()),
      });
      expect(response.statusCode).toBe(200);
    }
    expect(issuer.doubles.trustRegistry.getSigningCertificateCalls - before).toBeLessThanOrEqual(1);
  });
});
