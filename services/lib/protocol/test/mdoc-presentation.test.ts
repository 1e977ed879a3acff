import "reflect-metadata";
import { createPublicKey, webcrypto } from "node:crypto";
import { Document, MDoc, Verifier } from "@auth0/mdl";
import { cborDecode, cborEncode } from "@auth0/mdl/lib/cbor/index.js";
import * as x509 from "@peculiar/x509";
import { describe, expect, it } from "vitest";
import { generateP256Jwk, p256PublicJwk } from "../src/index.js";
import {
  createDeviceResponse,
  MdocVerificationError,
  oid4vpSessionTranscript,
  parseDeviceResponse,
  sessionTranscriptBytes,
  verifyMdocDeviceSignature,
  verifyMdocElementDigests,
  verifyMdocIssuerSignature,
} from "../src/mdoc/index.js";

x509.cryptoProvider.set(webcrypto as ReturnType<typeof x509.cryptoProvider.get>);

const EC = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const NAMESPACE = "org.iso.18013.5.1";

/** An IACA-like root and a document signer (C=GB, as ISO/IEC 18013-5 verifiers require). */
async function documentSigner() {
  const now = Date.now();
  const rootKeys = (await webcrypto.subtle.generateKey(EC, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: "01",
    name: "C=GB, CN=Test IACA",
    notBefore: new Date(now - 86_400_000),
    notAfter: new Date(now + 86_400_000 * 365),
    signingAlgorithm: EC,
    keys: rootKeys,
    extensions: [new x509.BasicConstraintsExtension(true, 0, true)],
  });
  const leafKeys = (await webcrypto.subtle.generateKey(EC, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: "02",
    subject: "C=GB, CN=Test Document Signer",
    issuer: root.subject,
    notBefore: new Date(now - 86_400_000),
    notAfter: new Date(now + 86_400_000 * 365),
    signingAlgorithm: EC,
    publicKey: leafKeys.publicKey,
    signingKey: rootKeys.privateKey,
  });
  const privateJwk = await webcrypto.subtle.exportKey("jwk", leafKeys.privateKey);
  return { root, leaf, privateJwk };
}

/** An mDL issued by @auth0/mdl, as the base64url IssuerSigned OID4VCI delivers. */
async function issuedMdl(signer: Awaited<ReturnType<typeof documentSigner>>, devicePublicJwk: object) {
  const document = await new Document("org.iso.18013.5.1.mDL")
    .addIssuerNameSpace(NAMESPACE, {
      given_name: "Ada",
      family_name: "Lovelace",
      age_over_18: true,
      issuing_country: "GB",
    })
    .useDigestAlgorithm("SHA-256")
    .addValidityInfo({ signed: new Date(Date.now() - 60_000) })
    .addDeviceKeyInfo({ deviceKey: devicePublicJwk as never })
    .sign({
      issuerPrivateKey: signer.privateJwk as never,
      issuerCertificate: signer.leaf.toString("pem"),
      alg: "ES256",
    });
  const encoded = cborDecode(new MDoc([document]).encode()) as Map<string, unknown>;
  const issuerSigned = (encoded.get("documents") as Map<string, unknown>[])[0]!.get("issuerSigned");
  return Buffer.from(cborEncode(issuerSigned)).toString("base64url");
}

describe("mdoc presentation (createDeviceResponse) and its verification", () => {
  it("discloses only the requested element, device-signed over the OID4VP transcript, and @auth0/mdl's verifier accepts it", async () => {
    const signer = await documentSigner();
    const device = generateP256Jwk();
    const issuerSigned = await issuedMdl(signer, p256PublicJwk(device));
    const transcript = await oid4vpSessionTranscript({
      clientId: "x509_hash:verifier",
      nonce: "n-0S6_WzA2Mj",
      responseUri: "https://verifier.example/v1/verifier/presentation",
    });
    const presentation = await createDeviceResponse({
      issuerSigned,
      disclose: { [NAMESPACE]: ["age_over_18"] },
      devicePrivateJwk: device,
      sessionTranscript: transcript,
    });

    const verified = await new Verifier([signer.root.toString("pem")]).verify(Buffer.from(presentation, "base64url"), {
      encodedSessionTranscript: Buffer.from(sessionTranscriptBytes(transcript)),
    });
    expect(verified.documents[0]!.getIssuerNameSpace(NAMESPACE)).toEqual({ age_over_18: true });

    const parsed = parseDeviceResponse(presentation);
    expect(parsed.elements.map(({ identifier, value }) => [identifier, value])).toEqual([["age_over_18", true]]);
    const leafKey = createPublicKey({ key: Buffer.from(signer.leaf.publicKey.rawData), format: "der", type: "spki" });
    expect(await verifyMdocIssuerSignature(parsed, leafKey.export({ format: "jwk" }) as never)).toBe(true);
    expect(await verifyMdocIssuerSignature(parsed, p256PublicJwk(generateP256Jwk()) as never)).toBe(false);
    await verifyMdocElementDigests(parsed);
    await verifyMdocDeviceSignature(parsed, transcript);
    const otherSession = await oid4vpSessionTranscript({
      clientId: "x509_hash:verifier",
      nonce: "another-nonce",
      responseUri: "https://verifier.example/v1/verifier/presentation",
    });
    await expect(verifyMdocDeviceSignature(parsed, otherSession)).rejects.toMatchObject({
      code: "device_signature_invalid",
    });
  });

  it("refuses to disclose an element the mdoc does not have", async () => {
    const signer = await documentSigner();
    const device = generateP256Jwk();
    const issuerSigned = await issuedMdl(signer, p256PublicJwk(device));
    const transcript = await oid4vpSessionTranscript({ clientId: "c", nonce: "n", responseUri: "https://v.example/p" });
    await expect(
      createDeviceResponse({
        issuerSigned,
        disclose: { [NAMESPACE]: ["portrait"] },
        devicePrivateJwk: device,
        sessionTranscript: transcript,
      }),
    ).rejects.toThrow();
  });

  it("names malformed presentations", () => {
    for (const [input, code] of [
      ["not base64url!", "malformed_device_response"],
      ["oWFhAQ", "malformed_device_response"],
      [42, "malformed_device_response"],
    ] as const) {
      expect(() => parseDeviceResponse(input)).toThrow(MdocVerificationError);
      try {
        parseDeviceResponse(input);
      } catch (error) {
        expect((error as MdocVerificationError).code).toBe(code);
      }
    }
  });
});
