import { createHash, X509Certificate } from "node:crypto";
import { calculateJwkThumbprint, exportJWK, importX509 } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CREDENTIAL_ISSUER_URL, startTestRegistry, type TestRegistry } from "./support/test-registry.js";

describe("the platform's X.509 trust anchors (public)", () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startTestRegistry();
  });
  afterAll(async () => {
    await registry?.close();
  });

  it("GET /v1/x509/trust-anchors: a JWK Set, each key the root's public key with x5c = [root]", async () => {
    const response = await registry.app.inject({ method: "GET", url: "/v1/x509/trust-anchors" });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("application/jwk-set+json; charset=utf-8");
    expect(response.headers["cache-control"]).toBe("public, max-age=3600");
    const { keys } = response.json() as { keys: Array<Record<string, unknown> & { x5c: string[] }> };
    const anchors = await registry.custody.trustAnchors();
    expect(keys).toHaveLength(1);
    const [key] = keys as [Record<string, unknown> & { x5c: string[] }];
    expect(key.x5c).toEqual(anchors);
    const root = new X509Certificate(Buffer.from(anchors[0]!, "base64"));
    expect(root.ca).toBe(true);
    expect(root.checkIssued(root)).toBe(true);
    const thumbprint = createHash("sha256").update(root.raw).digest("base64url");
    expect(key).toMatchObject({ kty: "EC", crv: "P-256", kid: thumbprint, "x5t#S256": thumbprint });
    // The JWK is the certificate's key: the same key whichever way a verifier reads it.
    const fromCertificate = await importX509(root.toString(), "ES256", { extractable: true });
    expect(await calculateJwkThumbprint(await exportJWK(fromCertificate))).toBe(
      await calculateJwkThumbprint({ kty: key.kty, crv: key.crv, x: key.x, y: key.y } as never),
    );
  });

  it("GET /v1/x509/trust-anchors.pem: the same roots as a PEM bundle", async () => {
    const response = await registry.app.inject({ method: "GET", url: "/v1/x509/trust-anchors.pem" });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("application/pem-certificate-chain");
    const blocks = response.body.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/g) ?? [];
    expect(blocks.join("")).toBe(response.body);
    expect(blocks.map((block) => new X509Certificate(block).raw.toString("base64"))).toEqual(
      await registry.custody.trustAnchors(),
    );
  });

  it("is what a tenant's platform-issued x5c chains to, and that leaf names the tenant's iss", async () => {
    const pem = (await registry.app.inject({ method: "GET", url: "/v1/x509/trust-anchors.pem" })).body;
    const root = new X509Certificate(pem);
    const { x5c } = await registry.custody.signingCertificate("acme");
    const [leaf, issuing] = x5c.map((der) => new X509Certificate(Buffer.from(der, "base64"))) as [
      X509Certificate,
      X509Certificate,
    ];
    expect(leaf.checkIssued(issuing) && leaf.verify(issuing.publicKey)).toBe(true);
    expect(issuing.checkIssued(root) && issuing.verify(root.publicKey)).toBe(true);
    const host = new URL(CREDENTIAL_ISSUER_URL).hostname;
    expect(leaf.subjectAltName).toBe(`URI:${CREDENTIAL_ISSUER_URL}/acme, DNS:${host}`);
  });
});
