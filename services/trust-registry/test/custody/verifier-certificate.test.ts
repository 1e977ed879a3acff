import type { TestDatabase } from "@attesto/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeyCustody } from "../../src/custody/index.js";
import {
  custodyDatabase,
  custodyOn,
  newKek,
  signJws,
  VALIDITY_DAYS,
  verifyWithCertificate,
  x509,
} from "./custody-test-kit.js";
import { createTenantChain } from "./tenant-chain-kit.js";

const DAY = 86_400_000;
const kek = newKek("kek-1");
const HOST = "verifier.example";

let database: TestDatabase<unknown>;
let custody: KeyCustody;

beforeAll(async () => {
  database = await custodyDatabase();
  custody = custodyOn(database, { keyEncryptionKeys: [kek] });
});
afterAll(() => database?.drop());

const parse = (base64Der: string) => new x509.X509Certificate(Buffer.from(base64Der, "base64"));
const sansOf = (base64Der: string) =>
  parse(base64Der)
    .getExtension(x509.SubjectAlternativeNameExtension)
    ?.names.items.map((name) => `${name.type}:${name.value}`);

describe("verifier identity in key custody (client_id_prefix x509_hash / x509_san_dns)", () => {
  it("issues a P-256 leaf from the platform CA naming only the verifier's host; it signs, never leaves", async () => {
    const certificate = await custody.verifierCertificate("acme", "platform", HOST);
    expect(certificate).toMatchObject({ tenant: "acme", alg: "ES256", source: "platform" });
    expect(certificate).not.toHaveProperty("privateJwk");
    expect(JSON.stringify(certificate.publicJwk)).not.toContain('"d"');
    expect(sansOf(certificate.x5c[0] as string)).toEqual([`dns:${HOST}`]);
    // The same platform CA as issuers' certificates: one trust anchor for wallets to install.
    await expect(custody.trustAnchors()).resolves.toEqual([certificate.trustAnchor]);
    expect(certificate.x5c).not.toContain(certificate.trustAnchor);
    const jws = await signJws(custody, "acme", certificate.keyId, { alg: "ES256" }, { hello: "wallet" });
    await expect(verifyWithCertificate(jws, certificate.x5c[0] as string)).resolves.toEqual({ hello: "wallet" });
    // Separate from the tenant's issuer signing certificate.
    const signing = await custody.signingCertificate("acme");
    expect(signing.keyId).not.toBe(certificate.keyId);
    await expect(custody.verifierCertificate("acme", "platform", HOST)).resolves.toEqual(certificate);
  });

  it("rotation: a new host, or the last 7 days before expiry, gives a new key and leaf", async () => {
    const first = await custody.verifierCertificate("rotating", "platform", HOST);
    const moved = await custody.verifierCertificate("rotating", "platform", "new.verifier.example");
    expect(moved.keyId).not.toBe(first.keyId);
    expect(sansOf(moved.x5c[0] as string)).toEqual(["dns:new.verifier.example"]);

    const at = (days: number) => () => new Date(Date.now() + days * DAY);
    const early = custodyOn(database, { keyEncryptionKeys: [kek], now: at(VALIDITY_DAYS - 8) });
    await expect(early.verifierCertificate("rotating", "platform", "new.verifier.example")).resolves.toEqual(moved);
    const late = custodyOn(database, { keyEncryptionKeys: [kek], now: at(VALIDITY_DAYS - 6) });
    const renewed = await late.verifierCertificate("rotating", "platform", "new.verifier.example");
    expect(renewed.keyId).not.toBe(moved.keyId);
    expect(renewed.x5c[1]).toBe(moved.x5c[1]);
  });

  it("an IP host becomes an iPAddress SAN; a host with a port or junk is refused", async () => {
    const ip = await custody.verifierCertificate("local", "platform", "127.0.0.1");
    expect(sansOf(ip.x5c[0] as string)).toEqual(["ip:127.0.0.1"]);
    await expect(custody.verifierCertificate("local", "platform", "host:8080")).rejects.toMatchObject({ status: 400 });
    await expect(custody.verifierCertificate("local", "platform", "")).rejects.toMatchObject({ status: 400 });
    await expect(custody.verifierCertificate("platform:ca", "platform", HOST)).rejects.toMatchObject({ status: 400 });
  });

  it("an imported chain needs no issuer name; it is used for source imported, refused (410) when absent or expired", async () => {
    await expect(custody.verifierCertificate("imp", "imported", HOST)).rejects.toMatchObject({ status: 410 });
    const chain = await createTenantChain("Imp", { subjectAltNames: [{ type: "dns", value: "rp.imp.example" }] });
    const imported = await custody.importVerifierCertificate(
      "imp",
      [chain.leaf, chain.intermediate, chain.root],
      chain.leafKeyPem,
    );
    expect(imported.changed).toBe(true);
    const again = await custody.importVerifierCertificate(
      "imp",
      [chain.leaf, chain.intermediate, chain.root],
      chain.leafKeyPem,
    );
    expect(again.changed).toBe(false);
    const held = await custody.verifierCertificate("imp", "imported", HOST);
    expect(held).toMatchObject({ source: "imported", keyId: imported.keyId, x5c: imported.x5c });
    expect(held.x5c).toHaveLength(2);
    // The issuer's imported certificate is a different thing: still none.
    const issuerCertificate = await custody.signingCertificate("imp");
    expect(issuerCertificate.keyId).not.toBe(imported.keyId);
    // The platform one is still there for policies that name it.
    const platform = await custody.verifierCertificate("imp", "platform", HOST);
    expect(platform.keyId).not.toBe(imported.keyId);

    const later = custodyOn(database, { keyEncryptionKeys: [kek], now: () => new Date(Date.now() + 400 * DAY) });
    await expect(later.verifierCertificate("imp", "imported", HOST)).rejects.toMatchObject({ status: 410 });
    await expect(custody.clearVerifierCertificate("imp")).resolves.toBe(true);
    await expect(custody.clearVerifierCertificate("imp")).resolves.toBe(false);
    await expect(custody.verifierCertificate("imp", "imported", HOST)).rejects.toMatchObject({ status: 410 });
    const expired = await createTenantChain("Old", { expired: true });
    await expect(
      custody.importVerifierCertificate("imp", [expired.leaf, expired.intermediate], expired.leafKeyPem),
    ).rejects.toMatchObject({ status: 400 });
  });
});
