import "reflect-metadata";
import { createPrivateKey, sign, webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";
import { describe, expect, it } from "vitest";
import {
  deviceResponseOf,
  presentWithIndependentWallet,
  verifyWithIndependentVerifier,
} from "../../../../test/support/independent-mdoc.js";
import { generateP256Jwk } from "../src/index.js";
import {
  COSE_ALGORITHMS,
  coseAlgorithmOf,
  decodeIssuerSigned,
  issueMdoc,
  MdocFormatError,
  mdocFullDate,
  parseIssuerSigned,
  verifyIssuerSigned,
} from "../src/mdoc/index.js";

x509.cryptoProvider.set(webcrypto as ReturnType<typeof x509.cryptoProvider.get>);

const EC = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const DAY = 24 * 3600_000;

/** A root CA (C=UT) and a document signer leaf, as an IACA and DS certificate pair. */
async function createChain() {
  const notBefore = new Date(Date.now() - DAY);
  const notAfter = new Date(Date.now() + 365 * DAY);
  const rootKeys = (await webcrypto.subtle.generateKey(EC, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: "01",
    name: "C=UT, CN=Test IACA",
    notBefore,
    notAfter,
    signingAlgorithm: EC,
    keys: rootKeys,
    extensions: [new x509.BasicConstraintsExtension(true, 0, true)],
  });
  const leafKeys = (await webcrypto.subtle.generateKey(EC, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: "02",
    subject: "C=UT, CN=Test DS",
    issuer: root.subject,
    notBefore,
    notAfter,
    signingAlgorithm: EC,
    publicKey: leafKeys.publicKey,
    signingKey: rootKeys.privateKey,
    extensions: [new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true)],
  });
  const leafJwk = await webcrypto.subtle.exportKey("jwk", leafKeys.privateKey);
  const leafKey = createPrivateKey({ key: leafJwk as never, format: "jwk" });
  return {
    root,
    leaf,
    /** Signs like key custody does: raw r||s over SHA-256. */
    sign: async (data: Uint8Array) => new Uint8Array(sign("sha256", data, { key: leafKey, dsaEncoding: "ieee-p1363" })),
  };
}

const chain = await createChain();
const device = generateP256Jwk();
const { d: _d, ...devicePublic } = device;
const portrait = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
const now = new Date();

const issue = (overrides: Partial<Parameters<typeof issueMdoc>[0]> = {}) =>
  issueMdoc({
    docType: "org.iso.18013.5.1.mDL",
    namespaces: {
      "org.iso.18013.5.1": {
        family_name: "Mustermann",
        given_name: "Erika",
        birth_date: mdocFullDate("1990-04-01"),
        portrait,
        age_over_18: true,
        issuing_country: "UT",
      },
    },
    deviceKey: devicePublic,
    validity: { signed: now, validFrom: now, validUntil: new Date(now.getTime() + 30 * DAY) },
    status: { idx: 42, uri: "https://issuer.example/status/1" },
    certificates: [new Uint8Array(chain.leaf.rawData)],
    algorithm: "ES256",
    sign: chain.sign,
    ...overrides,
  });

describe("mdoc wrapper", () => {
  it("maps JWS algorithms to COSE ids", () => {
    expect(COSE_ALGORITHMS.ES256).toBe(-7);
    expect(coseAlgorithmOf("ES256")).toBe(-7);
    expect(coseAlgorithmOf("HS256")).toBeUndefined();
    expect(coseAlgorithmOf("toString")).toBeUndefined();
  });

  it("issues an IssuerSigned that decodes to its elements, validity, status and device key", async () => {
    const decoded = decodeIssuerSigned(await issue());
    expect(decoded.docType).toBe("org.iso.18013.5.1.mDL");
    expect(decoded.namespaces["org.iso.18013.5.1"]).toEqual({
      family_name: "Mustermann",
      given_name: "Erika",
      birth_date: "1990-04-01",
      portrait: Buffer.from(portrait).toString("base64url"),
      age_over_18: true,
      issuing_country: "UT",
    });
    expect(decoded.status).toEqual({ idx: 42, uri: "https://issuer.example/status/1" });
    expect(decoded.deviceKey).toEqual(devicePublic);
    expect(decoded.digestAlgorithm).toBe("SHA-256");
    expect(decoded.validity.validUntil).toBe(
      new Date(now.getTime() + 30 * DAY).toISOString().replace(/\.\d+Z$/, ".000Z"),
    );
    expect(Buffer.from(decoded.x5chain[0] as Uint8Array).equals(Buffer.from(chain.leaf.rawData))).toBe(true);
  });

  it("signs with alg -7 in the protected header and x5chain in the unprotected one", async () => {
    const issuerAuth = parseIssuerSigned(await issue()).issuerAuth;
    expect(issuerAuth.protectedHeaders.headers?.get(1)).toBe(-7);
    expect(issuerAuth.unprotectedHeaders.headers?.get(33)).toBeInstanceOf(Uint8Array);
  });

  it("draws distinct salts (>= 16 bytes) and MSOs on every issuance", async () => {
    const [first, second] = [parseIssuerSigned(await issue()), parseIssuerSigned(await issue())];
    const salts = (issued: typeof first) =>
      (issued.getIssuerNamespace("org.iso.18013.5.1") ?? []).map((item) => Buffer.from(item.random).toString("hex"));
    expect(salts(first).every((salt) => salt.length >= 32)).toBe(true);
    expect(new Set([...salts(first), ...salts(second)]).size).toBe(12);
    expect(
      Buffer.from(first.issuerAuth.payload as Uint8Array).equals(Buffer.from(second.issuerAuth.payload as Uint8Array)),
    ).toBe(false);
  });

  it("verifies against the root and reports a foreign root and a tampered element", async () => {
    const encoded = await issue();
    const trusted = [new Uint8Array(chain.root.rawData)];
    expect(await verifyIssuerSigned(parseIssuerSigned(encoded), { trustedCertificates: trusted })).toEqual([]);

    const other = await createChain();
    const foreign = await verifyIssuerSigned(parseIssuerSigned(encoded), {
      trustedCertificates: [new Uint8Array(other.root.rawData)],
    });
    expect(foreign.map((failure) => failure.check)).toContain("Issuer certificate must be valid");

    const tampered = parseIssuerSigned(encoded);
    const item = tampered.getIssuerNamespace("org.iso.18013.5.1")?.find((i) => i.elementIdentifier === "age_over_18");
    item?.decodedStructure.set("elementValue", false);
    const failures = await verifyIssuerSigned(parseIssuerSigned(tampered.encodedForOid4Vci), {
      trustedCertificates: trusted,
    });
    expect(failures.some((failure) => failure.category === "DATA_INTEGRITY")).toBe(true);
  });

  it("refuses malformed input without echoing it", () => {
    for (const input of ["", "not base64url!", "AAAA", Buffer.from("secret-value").toString("base64url")]) {
      expect(() => decodeIssuerSigned(input)).toThrow(MdocFormatError);
      try {
        decodeIssuerSigned(input);
      } catch (error) {
        expect((error as Error).message).not.toContain("secret");
      }
    }
  });

  it("is accepted by an independent implementation (@auth0/mdl) with a device signature from the proof key", async () => {
    const docType = "org.iso.18013.5.1.mDL";
    const transcript = Buffer.from(`d8184c83f6f668${Buffer.from("handover").toString("hex")}`, "hex");
    const presented = await presentWithIndependentWallet({
      mdoc: deviceResponseOf(docType, await issue()),
      docType,
      claims: [{ path: ["org.iso.18013.5.1", "age_over_18"] }],
      transcript,
      devicePrivateJwk: device,
    });
    const verified = await verifyWithIndependentVerifier({
      deviceResponse: presented,
      trustAnchors: [chain.root.toString("pem")],
      transcript,
    });
    expect(verified.failed).toEqual([]);
    expect(verified.passed).toContain("Issuer certificate must be valid");
    expect(verified.elements).toEqual({ "org.iso.18013.5.1": { age_over_18: true } });
  });
});
