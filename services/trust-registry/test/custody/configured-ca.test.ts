import { webcrypto } from "node:crypto";
import type { TestDatabase } from "@attesto/store";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IssuingCaConfigError } from "../../src/custody/index.js";
import { custodyDatabase, custodyOn, newKek, signJws, verifyWithCertificate, x509 } from "./custody-test-kit.js";

const DAY = 86_400_000;
const ecdsa = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
const kek = newKek("kek-1");

type Keys = { publicKey: webcrypto.CryptoKey; privateKey: webcrypto.CryptoKey };
const newKeys = () => webcrypto.subtle.generateKey(ecdsa, true, ["sign", "verify"]) as Promise<Keys>;
const keyPem = async (keys: Keys) =>
  x509.PemConverter.encode(await webcrypto.subtle.exportKey("pkcs8", keys.privateKey), "PRIVATE KEY");
const caExtensions = (pathLength?: number) => [
  new x509.BasicConstraintsExtension(true, pathLength, true),
  new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
];
const der = (certificate: x509.X509Certificate) => Buffer.from(certificate.rawData).toString("base64");
const parse = (base64Der: string) => new x509.X509Certificate(Buffer.from(base64Der, "base64"));

/** An operator's PKI, built independently of custody's own CA code. */
async function operatorPki(options: { issuingDays?: number } = {}) {
  const rootKeys = await newKeys();
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    name: "CN=Operator Root, O=Operator",
    keys: rootKeys,
    signingAlgorithm: ecdsa,
    notAfter: new Date(Date.now() + 3650 * DAY),
    extensions: caExtensions(),
  });
  const issuingKeys = await newKeys();
  const issuing = await x509.X509CertificateGenerator.create({
    subject: "CN=Operator Issuing, O=Operator",
    issuer: root.subject,
    publicKey: issuingKeys.publicKey,
    signingKey: rootKeys.privateKey,
    signingAlgorithm: ecdsa,
    notAfter: new Date(Date.now() + (options.issuingDays ?? 1000) * DAY),
    extensions: caExtensions(0),
  });
  return { root, rootKeys, issuing, issuingKeys };
}

let database: TestDatabase<unknown>;
let pki: Awaited<ReturnType<typeof operatorPki>>;

beforeAll(async () => {
  database = await custodyDatabase();
  pki = await operatorPki();
});
afterAll(() => database?.drop());

describe("issuing CA from configuration", () => {
  it("chains tenant certificates to the configured root, never generating a CA", async () => {
    const custody = custodyOn(database, {
      keyEncryptionKeys: [kek],
      issuingCa: {
        certPem: pki.issuing.toString("pem") + pki.root.toString("pem"),
        keyPem: await keyPem(pki.issuingKeys),
      },
    });
    const certificate = await custody.signingCertificate("acme");
    expect(certificate.x5c[1]).toBe(der(pki.issuing));
    expect(certificate.trustAnchor).toBe(der(pki.root));
    expect(certificate.x5c).toHaveLength(2);
    const leaf = parse(certificate.x5c[0] as string);
    const chain = await new x509.X509ChainBuilder({ certificates: [pki.issuing, pki.root] }).build(leaf);
    expect(chain.map((c) => c.subject)).toEqual([leaf.subject, pki.issuing.subject, pki.root.subject]);
    expect(await leaf.verify({ publicKey: pki.issuing.publicKey, date: new Date() })).toBe(true);
    const jws = await signJws(custody, "acme", certificate.keyId, { alg: "ES256", x5c: certificate.x5c }, { a: 1 });
    await expect(verifyWithCertificate(jws, certificate.x5c[0] as string)).resolves.toEqual({ a: 1 });
    const { rows } = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM ${sql.table(`${database.schema}.custody_ca`)}`.execute(database.db);
    expect(rows[0]?.n).toBe(0);
  });

  it("treats a single self-signed CA as both issuer and anchor: x5c is the leaf alone", async () => {
    const custody = custodyOn(database, {
      keyEncryptionKeys: [kek],
      issuingCa: { certPem: pki.root.toString("pem"), keyPem: await keyPem(pki.rootKeys) },
    });
    const certificate = await custody.signingCertificate("root-only");
    expect(certificate.x5c).toHaveLength(1);
    expect(certificate.trustAnchor).toBe(der(pki.root));
    const leaf = parse(certificate.x5c[0] as string);
    expect(await leaf.isSelfSigned()).toBe(false);
    expect(await leaf.verify({ publicKey: pki.root.publicKey, date: new Date() })).toBe(true);
  });

  it("never lets a tenant certificate outlive its issuing CA", async () => {
    const shortLived = await operatorPki({ issuingDays: 10 });
    const custody = custodyOn(database, {
      keyEncryptionKeys: [kek],
      signingCertValidityDays: 365,
      issuingCa: {
        certPem: shortLived.issuing.toString("pem") + shortLived.root.toString("pem"),
        keyPem: await keyPem(shortLived.issuingKeys),
      },
    });
    const leaf = parse((await custody.signingCertificate("short")).x5c[0] as string);
    expect(leaf.notAfter.getTime()).toBeLessThanOrEqual(shortLived.issuing.notAfter.getTime());
  });

  it("reissues a tenant's certificate when the issuing CA changes", async () => {
    const generated = await custodyOn(database, { keyEncryptionKeys: [kek] }).signingCertificate("mover");
    const configured = custodyOn(database, {
      keyEncryptionKeys: [kek],
      issuingCa: {
        certPem: pki.issuing.toString("pem") + pki.root.toString("pem"),
        keyPem: await keyPem(pki.issuingKeys),
      },
    });
    const moved = await configured.signingCertificate("mover");
    expect(moved.keyId).not.toBe(generated.keyId);
    expect(moved.x5c[1]).toBe(der(pki.issuing));
    expect(moved.trustAnchor).toBe(der(pki.root));
  });

  it.each([
    [
      "a key that is not the certificate's",
      async () => ({ certPem: pki.issuing.toString("pem"), keyPem: await keyPem(pki.rootKeys) }),
      /does not match/,
    ],
    [
      "no certificate",
      async () => ({ certPem: "not pem", keyPem: await keyPem(pki.issuingKeys) }),
      /no certificate|not valid PEM/,
    ],
    [
      "a key that is not PEM",
      async () => ({ certPem: pki.issuing.toString("pem"), keyPem: "nope" }),
      /not a PEM private key/,
    ],
  ])("fails at creation on %s", async (_, issuingCa, message) => {
    const options = { keyEncryptionKeys: [kek], issuingCa: await issuingCa() };
    expect(() => custodyOn(database, options)).toThrow(IssuingCaConfigError);
    expect(() => custodyOn(database, options)).toThrow(message);
  });

  it("fails at creation on a certificate that is not a CA", async () => {
    const keys = await newKeys();
    const leaf = await x509.X509CertificateGenerator.createSelfSigned({
      name: "CN=not a ca",
      keys,
      signingAlgorithm: ecdsa,
      extensions: [new x509.BasicConstraintsExtension(false)],
    });
    expect(() =>
      custodyOn(database, { keyEncryptionKeys: [kek], issuingCa: { certPem: leaf.toString("pem"), keyPem: "" } }),
    ).toThrow(/not a CA certificate/);
  });
});
