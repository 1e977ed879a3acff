import { X509Certificate as NodeCertificate } from "node:crypto";
import type { TestDatabase } from "@attesto/store";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { trustRegistryConfigSchema } from "../../src/config.js";
import type { KeyCustody, SigningCertificate } from "../../src/custody/index.js";
import {
  CREDENTIAL_ISSUER_URL,
  custodyDatabase,
  custodyOn,
  issuerOf,
  newKek,
  signJws,
  VALIDITY_DAYS,
  verifyWithCertificate,
  x509,
} from "./custody-test-kit.js";

const STANDARD_BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const DAY = 86_400_000;
const kek = newKek("kek-1");

let database: TestDatabase<unknown>;
let custody: KeyCustody;
let certificate: SigningCertificate;

beforeAll(async () => {
  database = await custodyDatabase();
  custody = custodyOn(database, { keyEncryptionKeys: [kek] });
  certificate = await custody.signingCertificate("acme");
});
afterAll(() => database?.drop());

const parse = (base64Der: string) => new x509.X509Certificate(Buffer.from(base64Der, "base64"));
const tenantKeyCount = async (tenant: string, on: TestDatabase<unknown> = database) => {
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(
    `${on.schema}.custody_keys`,
  )} WHERE tenant = ${tenant}`.execute(on.db);
  return rows[0]?.n;
};
const countRows = async (table: string) => {
  const { rows } = await sql<{
    n: number;
  }>`SELECT count(*)::int AS n FROM ${sql.table(`${database.schema}.${table}`)}`.execute(database.db);
  return rows[0]?.n;
};

describe("tenant signing certificate (HAIP x5c)", () => {
  it("returns [leaf, issuing CA] in standard base64, without the trust anchor", () => {
    expect(certificate.x5c).toHaveLength(2);
    for (const entry of [...certificate.x5c, certificate.trustAnchor]) expect(entry).toMatch(STANDARD_BASE64);
    expect(certificate.x5c).not.toContain(certificate.trustAnchor);
    expect(certificate).toMatchObject({ tenant: "acme", alg: "ES256", publicJwk: { kty: "EC", crv: "P-256" } });
  });

  it("publishes the trust anchor for verifiers", async () => {
    await expect(custody.trustAnchors()).resolves.toEqual([certificate.trustAnchor]);
  });

  it("builds and verifies the chain from leaf to trust anchor", async () => {
    const [leaf, issuing] = certificate.x5c.map(parse) as [x509.X509Certificate, x509.X509Certificate];
    const anchor = parse(certificate.trustAnchor);
    const chain = await new x509.X509ChainBuilder({ certificates: [issuing, anchor] }).build(leaf);
    expect(chain.map((c) => c.subject)).toEqual([leaf.subject, issuing.subject, anchor.subject]);
    expect(await leaf.verify({ publicKey: issuing.publicKey, date: new Date() })).toBe(true);
    expect(await issuing.verify({ publicKey: anchor.publicKey, date: new Date() })).toBe(true);
    expect(await anchor.verify({ date: new Date() })).toBe(true);
    expect(await anchor.isSelfSigned()).toBe(true);
  });

  it("verifies with Node's own X.509 implementation too", () => {
    const [leaf, issuing] = certificate.x5c.map((b) => new NodeCertificate(Buffer.from(b, "base64"))) as [
      NodeCertificate,
      NodeCertificate,
    ];
    const anchor = new NodeCertificate(Buffer.from(certificate.trustAnchor, "base64"));
    expect(leaf.checkIssued(issuing) && leaf.verify(issuing.publicKey)).toBe(true);
    expect(issuing.checkIssued(anchor) && issuing.verify(anchor.publicKey)).toBe(true);
    expect([leaf.ca, issuing.ca, anchor.ca]).toEqual([false, true, true]);
  });

  it("issues a leaf that is not self-signed, not a CA, for digitalSignature, CN=tenant O=Attesto", async () => {
    const leaf = parse(certificate.x5c[0] as string);
    expect(await leaf.isSelfSigned()).toBe(false);
    expect(leaf.subjectName.getField("CN")).toEqual(["acme"]);
    expect(leaf.subjectName.getField("O")).toEqual(["Attesto"]);
    // ISO/IEC 18013-5: the document signer names the IACA's country (CA_COUNTRY, UT by default).
    expect(leaf.subjectName.getField("C")).toEqual(["UT"]);
    expect(parse(certificate.trustAnchor).subjectName.getField("C")).toEqual(["UT"]);
    expect(leaf.getExtension(x509.BasicConstraintsExtension)?.ca).toBe(false);
    expect(leaf.getExtension(x509.KeyUsagesExtension)?.usages).toBe(x509.KeyUsageFlags.digitalSignature);
    expect(leaf.serialNumber).toMatch(/^[0-9a-f]{32}$/);
    const days = (leaf.notAfter.getTime() - Date.now()) / DAY;
    expect(days).toBeGreaterThan(VALIDITY_DAYS - 1);
    expect(days).toBeLessThanOrEqual(VALIDITY_DAYS);
  });

  it("CA_COUNTRY names the generated CAs and every leaf they issue (ISO/IEC 18013-5 countryName)", async () => {
    const other = await custodyDatabase();
    try {
      const german = await custodyOn(other, { keyEncryptionKeys: [kek], caCountry: "DE" }).signingCertificate("acme");
      const [leaf, issuing] = german.x5c.map(parse) as [x509.X509Certificate, x509.X509Certificate];
      for (const named of [leaf, issuing, parse(german.trustAnchor)])
        expect(named.subjectName.getField("C")).toEqual(["DE"]);
    } finally {
      await other.drop();
    }
    // The setting: two capital letters, UT when unset.
    const setting = trustRegistryConfigSchema.shape.CA_COUNTRY;
    expect(setting.parse(undefined)).toBe("UT");
    for (const bad of ["de", "DEU", "", "D1"]) expect(setting.safeParse(bad).success).toBe(false);
  });

  it("names the tenant's iss in the leaf's subjectAltName: URI (SD-JWT VC) and its host as dNSName (HAIP)", () => {
    const san = parse(certificate.x5c[0] as string).getExtension(x509.SubjectAlternativeNameExtension);
    expect(san?.critical).toBe(false);
    expect(san?.names.items.map((name) => ({ type: name.type, value: name.value }))).toEqual([
      { type: "url", value: issuerOf("acme") },
      { type: "dns", value: new URL(CREDENTIAL_ISSUER_URL).hostname },
    ]);
  });

  it("reissues, on next use, a certificate that does not name the tenant's iss (no SAN yet, or another issuer URL)", async () => {
    const before = custodyOn(database, { keyEncryptionKeys: [kek], credentialIssuerUrl: "https://old-issuer.example" });
    const stale = await before.signingCertificate("wayne");
    const names = () => parse(stale.x5c[0] as string).getExtension(x509.SubjectAlternativeNameExtension);
    expect(names()?.names.items[0]?.value).toBe("https://old-issuer.example/wayne");

    const current = await custody.signingCertificate("wayne");
    expect(current.keyId).not.toBe(stale.keyId);
    const san = parse(current.x5c[0] as string).getExtension(x509.SubjectAlternativeNameExtension);
    expect(san?.names.items[0]?.value).toBe(issuerOf("wayne"));
    await expect(custody.signingCertificate("wayne")).resolves.toEqual(current);
  });

  it("reissues a stored certificate without any subjectAltName", async () => {
    const first = await custody.signingCertificate("stark");
    // As a certificate issued before SANs: keep the row, swap in a leaf without the extension.
    const issuingRow = await sql<{ cert_pem: string }>`SELECT cert_pem FROM ${sql.table(
      `${database.schema}.custody_ca`,
    )} WHERE id = 'issuing'`.execute(database.db);
    const withoutSan = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: "01",
      name: "CN=stark, O=Attesto",
      notBefore: new Date(Date.now() - DAY),
      notAfter: new Date(Date.now() + VALIDITY_DAYS * DAY),
      signingAlgorithm: { name: "ECDSA", hash: "SHA-256" },
      keys: await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign", "verify"]),
    });
    const issuingBase64 = Buffer.from(new x509.X509Certificate(issuingRow.rows[0]?.cert_pem ?? "").rawData).toString(
      "base64",
    );
    const staleX5c = JSON.stringify([Buffer.from(withoutSan.rawData).toString("base64"), issuingBase64]);
    await sql`UPDATE ${sql.table(`${database.schema}.custody_certificates`)} SET x5c = ${staleX5c}::jsonb WHERE tenant = 'stark'`.execute(
      database.db,
    );
    const reissued = await custodyOn(database, { keyEncryptionKeys: [kek] }).signingCertificate("stark");
    expect(reissued.keyId).not.toBe(first.keyId);
    expect(parse(reissued.x5c[0] as string).getExtension(x509.SubjectAlternativeNameExtension)).not.toBeNull();
  });

  it("makes the issuing CA a CA that signs only leaves, and the root a CA", () => {
    const issuing = parse(certificate.x5c[1] as string);
    const anchor = parse(certificate.trustAnchor);
    expect(issuing.getExtension(x509.BasicConstraintsExtension)).toMatchObject({ ca: true, pathLength: 0 });
    expect(anchor.getExtension(x509.BasicConstraintsExtension)?.ca).toBe(true);
    for (const ca of [issuing, anchor]) {
      expect(ca.getExtension(x509.KeyUsagesExtension)?.usages).toBe(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
      );
    }
  });

  it("certifies the custody key: same public key, and describeKey returns the chain", async () => {
    const leafKey = new NodeCertificate(Buffer.from(certificate.x5c[0] as string, "base64")).publicKey.export({
      format: "jwk",
    });
    expect({ x: leafKey.x, y: leafKey.y }).toEqual({ x: certificate.publicJwk.x, y: certificate.publicJwk.y });
    await expect(custody.describeKey("acme", certificate.keyId)).resolves.toMatchObject({
      keyId: certificate.keyId,
      publicJwk: certificate.publicJwk,
      x5c: certificate.x5c,
    });
  });

  it("signs an ES256 JWS through custody that verifies with the leaf's public key", async () => {
    const header = { alg: "ES256", typ: "dc+sd-jwt", x5c: certificate.x5c };
    const jws = await signJws(custody, "acme", certificate.keyId, header, { iss: "https://issuer.example/acme" });
    await expect(verifyWithCertificate(jws, certificate.x5c[0] as string)).resolves.toEqual({
      iss: "https://issuer.example/acme",
    });
  });

  it("keeps the certificate key to its tenant", async () => {
    await expect(custody.sign("globex", certificate.keyId, new Uint8Array(1))).rejects.toMatchObject({ status: 404 });
  });

  it("returns the same certificate on later calls and from another replica", async () => {
    await expect(custody.signingCertificate("acme")).resolves.toEqual(certificate);
    const replica = custodyOn(database, { keyEncryptionKeys: [kek] });
    await expect(replica.signingCertificate("acme")).resolves.toEqual(certificate);
  });

  it("gives each tenant its own key and certificate from the same CA", async () => {
    const other = await custody.signingCertificate("globex");
    expect(other.keyId).not.toBe(certificate.keyId);
    expect(other.x5c[0]).not.toBe(certificate.x5c[0]);
    expect(other.x5c[1]).toBe(certificate.x5c[1]);
    expect(other.trustAnchor).toBe(certificate.trustAnchor);
  });

  it("issues one certificate for concurrent first calls in one replica", async () => {
    const results = await Promise.all([1, 2, 3].map(() => custody.signingCertificate("initech")));
    for (const result of results) expect(result).toEqual(results[0]);
    expect(await tenantKeyCount("initech")).toBe(1);
  });

  it("lets a second replica reuse the first one's CA and certificates", async () => {
    const replica = custodyOn(database, { keyEncryptionKeys: [kek] });
    const first = await replica.signingCertificate("umbrella");
    await expect(custodyOn(database, { keyEncryptionKeys: [kek] }).signingCertificate("umbrella")).resolves.toEqual(
      first,
    );
    expect(first.trustAnchor).toBe(certificate.trustAnchor);
    expect(await countRows("custody_ca")).toBe(2);
  });

  it("renews with a new key within 7 days of expiry, and not before", async () => {
    const at = (days: number) => () => new Date(Date.now() + days * DAY);
    const early = custodyOn(database, { keyEncryptionKeys: [kek], now: at(VALIDITY_DAYS - 8) });
    await expect(early.signingCertificate("acme")).resolves.toEqual(certificate);

    const late = custodyOn(database, { keyEncryptionKeys: [kek], now: at(VALIDITY_DAYS - 6) });
    const renewed = await late.signingCertificate("acme");
    expect(renewed.keyId).not.toBe(certificate.keyId);
    expect(renewed.x5c[0]).not.toBe(certificate.x5c[0]);
    expect(renewed.x5c[1]).toBe(certificate.x5c[1]);
    expect(parse(renewed.x5c[0] as string).notAfter.getTime()).toBeGreaterThan(
      Date.now() + (2 * VALIDITY_DAYS - 7) * DAY,
    );
    await expect(custody.signingCertificate("acme")).resolves.toEqual(renewed);
    // The old key stays in custody for its tenant; only the certificate moved on.
    await expect(custody.describeKey("acme", certificate.keyId)).resolves.not.toHaveProperty("x5c");
  });

  it("generated the platform CA once: two CA rows and two platform keys", async () => {
    expect(await countRows("custody_ca")).toBe(2);
    expect(await tenantKeyCount("platform:ca")).toBe(2);
  });
});

/* Replicas racing on first use: several pools on one database, as several replicas would be. */
describe("replicas racing", () => {
  let fresh: TestDatabase<unknown>;
  beforeAll(async () => {
    fresh = await custodyDatabase();
  });
  afterAll(() => fresh?.drop());

  it("ends with one CA when three replicas start at once", async () => {
    const replicas = [1, 2, 3].map(() => custodyOn(fresh, { keyEncryptionKeys: [kek] }));
    const results = await Promise.all(replicas.map((replica, i) => replica.signingCertificate(`tenant-${i}`)));
    for (const result of results) {
      expect(result.trustAnchor).toBe(results[0]?.trustAnchor);
      expect(result.x5c[1]).toBe(results[0]?.x5c[1]);
    }
    const { rows } = await sql<{
      id: string;
    }>`SELECT id FROM ${sql.table(`${fresh.schema}.custody_ca`)} ORDER BY id`.execute(fresh.db);
    expect(rows.map((row) => row.id)).toEqual(["issuing", "root"]);
    // The losers' CA keys were rolled back with their transactions.
    expect(await tenantKeyCount("platform:ca", fresh)).toBe(2);
  });

  it("issues one certificate when replicas ask for the same tenant at once", async () => {
    const replicas = [1, 2, 3].map(() => custodyOn(fresh, { keyEncryptionKeys: [kek] }));
    const results = await Promise.all(replicas.map((replica) => replica.signingCertificate("acme")));
    for (const result of results) expect(result).toEqual(results[0]);
    expect(await tenantKeyCount("acme", fresh)).toBe(1);
  });

  it("renews once when replicas find the certificate expiring at once", async () => {
    const before = await custodyOn(fresh, { keyEncryptionKeys: [kek] }).signingCertificate("acme");
    const late = () => new Date(Date.now() + (VALIDITY_DAYS - 1) * DAY);
    const replicas = [1, 2, 3].map(() => custodyOn(fresh, { keyEncryptionKeys: [kek], now: late }));
    const results = await Promise.all(replicas.map((replica) => replica.signingCertificate("acme")));
    for (const result of results) expect(result).toEqual(results[0]);
    expect(results[0]?.keyId).not.toBe(before.keyId);
    expect(await tenantKeyCount("acme", fresh)).toBe(2);
  });
});
