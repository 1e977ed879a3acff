import { ed25519PublicJwk, generateEd25519Jwk } from "@attesto/protocol";
import { importJWK, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessTokenOf, bearer, registerOrganization } from "./support/organizations.js";
import { startTestRegistry, type TestRegistry } from "./support/test-registry.js";

const CONTEXT = "https://identity.foundation/.well-known/did-configuration/v1";
const ONE_YEAR = 365 * 24 * 60 * 60;

const getConfiguration = (registry: TestRegistry, tenant: string) =>
  registry.app.inject({ method: "GET", url: `/.well-known/did-configuration.json/${tenant}` });

/** Verifies a Domain Linkage Credential with jose against the key in the DID's ledger document. */
async function verifyLinkage(registry: TestRegistry, jwt: string) {
  const did = (JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()) as { iss: string }).iss;
  const publicKey = await importJWK({ ...registry.ledger.publicJwkOf(did), alg: "EdDSA" }, "EdDSA");
  const { payload, protectedHeader } = await jwtVerify(jwt, publicKey, {
    algorithms: ["EdDSA"],
    subject: did,
    issuer: did,
  });
  return { did, payload, protectedHeader };
}

describe("GET /.well-known/did-configuration.json/:tenant", () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startTestRegistry();
  });
  afterAll(async () => {
    await registry?.close();
  });

  it("answers 404 for an unknown tenant", async () => {
    const response = await getConfiguration(registry, "nobody-here");
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 404,
      body: { error: "not_found", message: "Tenant not found" },
    });
  });

  it("answers an empty linked_dids for a tenant without DIDs", async () => {
    const organization = await registerOrganization(registry.app);
    const response = await getConfiguration(registry, organization.tenant);
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 200,
      body: { "@context": CONTEXT, linked_dids: [] },
    });
    expect(response.headers["content-type"]).toMatch(/^application\/json/);
  });

  it("links every DID of the tenant with a Domain Linkage Credential signed by that DID's key", async () => {
    const organization = await registerOrganization(registry.app);
    const token = await accessTokenOf(registry.app, organization);
    const created = (await registry.app.inject({ method: "POST", url: "/v1/did", headers: bearer(token) })).json();
    const privateJwk = generateEd25519Jwk();
    const imported = registry.ledger.anchor(ed25519PublicJwk(privateJwk));
    const importResponse = await registry.app.inject({
      method: "POST",
      url: "/v1/did/import",
      headers: bearer(token),
      payload: { did: imported.did, private_key: privateJwk.d },
    });
    expect(importResponse.statusCode).toBe(201);

    const response = await getConfiguration(registry, organization.tenant.toUpperCase());
    expect(response.statusCode).toBe(200);
    const body = response.json() as { "@context": string; linked_dids: string[] };
    expect(Object.keys(body)).toEqual(["@context", "linked_dids"]);
    expect(body["@context"]).toBe(CONTEXT);
    expect(body.linked_dids).toHaveLength(2);

    const verified = await Promise.all(body.linked_dids.map((jwt) => verifyLinkage(registry, jwt)));
    expect(verified.map((v) => v.did).sort()).toEqual([created.did, imported.did].sort());
    for (const { did, payload, protectedHeader } of verified) {
      const keyId = did === created.did ? created.key_id : imported.keyId;
      expect(protectedHeader).toEqual({ alg: "EdDSA", kid: keyId, typ: "JWT" });
      const nbf = payload.nbf as number;
      expect(Math.abs(nbf - Date.now() / 1000)).toBeLessThan(60);
      const iso = (seconds: number) => new Date(seconds * 1000).toISOString().replace(".000Z", "Z");
      expect(payload).toEqual({
        iss: did,
        sub: did,
        nbf,
        exp: nbf + ONE_YEAR,
        vc: {
          "@context": ["https://www.w3.org/2018/credentials/v1", CONTEXT],
          issuer: did,
          issuanceDate: iso(nbf),
          expirationDate: iso(nbf + ONE_YEAR),
          type: ["VerifiableCredential", "DomainLinkageCredential"],
          credentialSubject: { id: did, origin: "https://issuer.example.com" },
        },
      });
    }
  });

  it("never lists another tenant's DIDs", async () => {
    const a = await registerOrganization(registry.app);
    const b = await registerOrganization(registry.app);
    const tokenA = await accessTokenOf(registry.app, a);
    await registry.app.inject({ method: "POST", url: "/v1/did", headers: bearer(tokenA) });
    expect((await getConfiguration(registry, a.tenant)).json().linked_dids).toHaveLength(1);
    expect((await getConfiguration(registry, b.tenant)).json().linked_dids).toEqual([]);
  });
});

describe("DID configuration with DOMAIN_LINKAGE_ORIGIN", () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startTestRegistry({
      env: { DOMAIN_LINKAGE_ORIGIN: "https://wallet-facing.example:8443/ignored/path" },
    });
  });
  afterAll(async () => {
    await registry?.close();
  });

  it("links DIDs to the configured origin", async () => {
    const organization = await registerOrganization(registry.app);
    const token = await accessTokenOf(registry.app, organization);
    await registry.app.inject({ method: "POST", url: "/v1/did", headers: bearer(token) });
    const [jwt] = (await getConfiguration(registry, organization.tenant)).json().linked_dids as string[];
    const { payload } = await verifyLinkage(registry, jwt!);
    expect((payload.vc as { credentialSubject: unknown }).credentialSubject).toEqual({
      id: payload.sub,
      origin: "https://wallet-facing.example:8443",
    });
  });
});
