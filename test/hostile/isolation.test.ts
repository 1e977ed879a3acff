import { decodeJwt, decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  applyTenant,
  createOffer,
  createOrganizationDid,
  didKeyIssuer,
  fetchNonce,
  fetchOffer,
  getToken,
  issueCredential,
  keyProof,
  logIn,
  openSession,
  p256Key,
  postCredential,
  presentation,
  submitPresentation,
  type Tenant,
  verificationResult,
} from "./support/flows.js";
import { expectRefused, http, postJson } from "./support/http.js";
import { startTestPlatform, type TestPlatform } from "./support/platform.js";

/**
 * Tenant isolation (the root README): two tenants A and B registered through POST /v1/apply; every
 * resource one of them owns is invisible to, and unusable by, the other.
 */
const PORT_OFFSET = 22_040;

describe("tenant isolation", () => {
  let platform: TestPlatform;
  let a: Tenant;
  let b: Tenant;
  let loginA: string;
  let loginB: string;

  beforeAll(async () => {
    platform = await startTestPlatform({ portOffset: PORT_OFFSET, label: "hostile_iso" });
    [a, b] = await Promise.all([applyTenant(platform.url), applyTenant(platform.url)]);
    [loginA, loginB] = await Promise.all([logIn(platform.url, a), logIn(platform.url, b)]);
  });
  afterAll(async () => {
    await platform?.close();
  });

  // A signs its DID-path credentials with one issuer DID, as a tenant does: the credential issuer's
  // JWT VC Issuer Metadata shows a key it has not listed before only once its cached copy (about a
  // minute) expires, so a second fresh did:key of A would not verify yet.
  const signingA = didKeyIssuer();

  describe("verification sessions", () => {
    it("B's API key cannot read A's verification results (404), in any spelling of the id", async () => {
      const issued = await issueCredential(platform.url, a, { signing: signingA });
      const session = await openSession(platform.url, a.apiKey);
      expect((await submitPresentation(platform.url, session, await presentation(issued, session))).status).toBe(200);
      const own = await verificationResult(platform.url, a.apiKey, session.session_id);
      expect(own.status).toBe(200);
      expect((own.json as { status: string }).status).toBe("completed");
      for (const id of [
        session.session_id,
        session.session_id.toUpperCase(),
        ` ${session.session_id}`,
        `${session.session_id}%00`,
      ]) {
        const result = await verificationResult(platform.url, b.apiKey, id);
        expectRefused(result, "api", { statuses: [400, 404], context: id });
        expect(result.text).not.toContain("presentation_metadata");
      }
    });

    it("a pending session of A is as invisible to B as an unknown one", async () => {
      const session = await openSession(platform.url, a.apiKey);
      const theirs = await verificationResult(platform.url, b.apiKey, session.session_id);
      const unknown = await verificationResult(platform.url, b.apiKey, crypto.randomUUID());
      expectRefused(theirs, "api", { statuses: [404] });
      expect(theirs.json).toEqual(unknown.json);
    });
  });

  describe("offers and credentials", () => {
    it("an access token from A's offer cannot obtain a credential for B's issuer (proof audience B)", async () => {
      const before = await platform.count("credential-issuer", "credentials");
      const offer = await createOffer(platform.url, a.apiKey, {});
      const { code, document } = await fetchOffer(offer);
      expect(document.credential_issuer).toBe(`${platform.url.issuer}/${a.tenant}`);
      const token = await getToken(platform.url, code, p256Key());
      const proof = await keyProof({
        key: p256Key(),
        nonce: await fetchNonce(platform.url),
        audience: `${platform.url.issuer}/${b.tenant}`,
      });
      const result = await postCredential(platform.url, token, {
        credential_configuration_id: document.credential_configuration_ids[0],
        proofs: { jwt: [proof] },
      });
      expectRefused(result, "oauth", { statuses: [400], code: "invalid_proof" });
      expect(await platform.count("credential-issuer", "credentials")).toBe(before);
    });

    it("credentials of A and B are signed under their own issuer identifiers and X.509 keys", async () => {
      const [fromA, fromB] = await Promise.all([
        issueCredential(platform.url, a, { x509: true }),
        issueCredential(platform.url, b, { x509: true }),
      ]);
      const jwtA = fromA.credential.split("~")[0]!;
      const jwtB = fromB.credential.split("~")[0]!;
      expect(decodeJwt(jwtA).iss).toBe(`${platform.url.issuer}/${a.tenant}`);
      expect(decodeJwt(jwtB).iss).toBe(`${platform.url.issuer}/${b.tenant}`);
      const leafA = (decodeProtectedHeader(jwtA).x5c as string[])[0];
      const leafB = (decodeProtectedHeader(jwtB).x5c as string[])[0];
      expect(leafA).toBeDefined();
      expect(leafA).not.toBe(leafB);
    });

    it("A's credential fails a session of B that trusts only B's issuer DID", async () => {
      const issuedA = await issueCredential(platform.url, a, { signing: signingA });
      const issuedB = await issueCredential(platform.url, b);
      const issuerDidOf = (credential: string) =>
        String(decodeProtectedHeader(credential.split("~")[0]!).kid).split("#")[0]!;
      const trusted = {
        dcql_query: {
          credentials: [
            {
              id: "badge",
              format: "dc+sd-jwt",
              meta: { vct_values: [`${platform.url.schema}/schemas/employee-badge/v1`] },
              trusted_authorities: [{ type: "did", values: [issuerDidOf(issuedB.credential)] }],
            },
          ],
        },
      };
      const outcome = async (issued: typeof issuedA) => {
        const session = await openSession(platform.url, b.apiKey, { body: trusted });
        expect((await submitPresentation(platform.url, session, await presentation(issued, session))).status).toBe(200);
        return (await verificationResult(platform.url, b.apiKey, session.session_id)).json as {
          status: string;
          check_results: Array<{ check: string; status: string }>;
        };
      };
      expect((await outcome(issuedB)).status).toBe("completed");
      const foreign = await outcome(issuedA);
      expect(foreign.status).toBe("failed");
      expect(foreign.check_results.find((check) => check.check === "trusted_authorities")?.status).toBe("failed");
    });
  });

  describe("roles", () => {
    it("a tenant registered without the verifier role gets 403 at the verifier, without the issuer role 403 at the issuer", async () => {
      const [issuerOnly, verifierOnly] = await Promise.all([
        applyTenant(platform.url, { isVerifier: false }),
        applyTenant(platform.url, { isIssuer: false }),
      ]);
      const session = await postJson(
        `${platform.url.verifier}/v1/verifier/authorization-request`,
        {},
        { "x-api-key": issuerOnly.apiKey },
      );
      expectRefused(session, "api", { statuses: [403] });
      expect((session.json as { message: string }).message).toBe("Forbidden");
      const offer = await postJson(`${platform.url.issuer}/v1/offers`, {}, { "x-api-key": verifierOnly.apiKey });
      expectRefused(offer, "api", { statuses: [403] });
      expect((offer.json as { message: string }).message).toBe("Forbidden");
    });
  });

  describe("organization DIDs", () => {
    it("A's login token cannot take over B's DID, even with B's private key (409)", async () => {
      const didB = await createOrganizationDid(platform.url, loginB);
      const result = await postJson(
        `${platform.url.trust}/v1/did/import`,
        { did: didB.did, private_key: didB.private_key },
        { authorization: `Bearer ${loginA}` },
      );
      expectRefused(result, "api", { statuses: [409] });
      expect((result.json as { message: string }).message).toBe("DID is already registered to another organization");
      // B importing its own DID again is idempotent.
      const again = await postJson(
        `${platform.url.trust}/v1/did/import`,
        { did: didB.did, private_key: didB.private_key },
        { authorization: `Bearer ${loginB}` },
      );
      expect(again.status).toBe(201);
    });

    it("each tenant's DID configuration links only its own DIDs", async () => {
      const didA = await createOrganizationDid(platform.url, loginA);
      const configuration = async (tenant: Tenant) => {
        const result = await http(`${platform.url.trust}/.well-known/did-configuration.json/${tenant.tenant}`);
        expect(result.status).toBe(200);
        return (result.json as { linked_dids: string[] }).linked_dids.map((jwt) => decodeJwt(jwt));
      };
      const linkedA = await configuration(a);
      const linkedB = await configuration(b);
      expect(linkedA.map((claims) => claims.iss)).toContain(didA.did);
      for (const claims of linkedB) expect(claims.iss).not.toBe(didA.did);
      for (const claims of linkedA) expect(linkedB.map((other) => other.iss)).not.toContain(claims.iss);
    });

    it("a login token whose tenant claim is edited to B's is refused", async () => {
      const [header, payload, signature] = loginA.split(".") as [string, string, string];
      const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
      const edited = Object.fromEntries(
        Object.entries(claims).map(([key, value]) => [
          key,
          value === a.tenant ? b.tenant : value === a.uuid ? b.uuid : value,
        ]),
      );
      const forged = `${header}.${Buffer.from(JSON.stringify(edited)).toString("base64url")}.${signature}`;
      const result = await postJson(`${platform.url.trust}/v1/did`, {}, { authorization: `Bearer ${forged}` });
      expectRefused(result, "api", { statuses: [401] });
    });
  });

  describe("holder", () => {
    it("B's holder login cannot read or delete A's stored credentials and DIDs", async () => {
      const registeredA = await postJson(`${platform.url.holder}/v1/user/register`, {
        password: "Holder-Passw0rd",
        name: "A",
      });
      expect(registeredA.status).toBe(201);
      const userA = registeredA.json as { uuid: string };
      const registeredB = await postJson(`${platform.url.holder}/v1/user/register`, {
        password: "Holder-Passw0rd",
        name: "B",
      });
      const userB = registeredB.json as { uuid: string };
      const login = async (uuid: string) =>
        (
          (await postJson(`${platform.url.holder}/v1/user/login`, { uuid, password: "Holder-Passw0rd" })).json as {
            access_token: string;
          }
        ).access_token;
      const [tokenA, tokenB] = await Promise.all([login(userA.uuid), login(userB.uuid)]);
      const didA = await postJson(
        `${platform.url.holder}/v1/did`,
        { method: "LEDGER" },
        { authorization: `Bearer ${tokenA}` },
      );
      expect(didA.status).toBe(201);
      const did = (didA.json as { did: string }).did;
      const asB = { authorization: `Bearer ${tokenB}` };
      const deleteByB = await http(`${platform.url.holder}/v1/did/${encodeURIComponent(did)}`, {
        method: "DELETE",
        headers: asB,
      });
      expectRefused(deleteByB, "api", { statuses: [404] });
      const listB = await http(`${platform.url.holder}/v1/did`, { headers: asB });
      expect(listB.status).toBe(200);
      expect(JSON.stringify(listB.json)).not.toContain(did);
      const readByB = await http(`${platform.url.holder}/v1/vc/${crypto.randomUUID()}`, { headers: asB });
      expectRefused(readByB, "api", { statuses: [404] });
      const forged = await http(`${platform.url.holder}/v1/did`, { headers: { authorization: `Bearer ${loginA}` } });
      expectRefused(forged, "api", { statuses: [401] });
    });
  });
});
