/**
 * The OWF @openid4vc/openid4vp wallet (Openid4vpClient) against the running verifier with
 * client_id_prefix x509_hash and x509_san_dns: it checks the x5c-signed request object by its own
 * rules (hash of the leaf, dNSName = response_uri host) and presents; the session ends completed.
 */
import { createHash, X509Certificate } from "node:crypto";
import { createServer } from "node:net";
import type { CallbackContext, Jwk, JwtSigner } from "@openid4vc/oauth2";
import { Openid4vpClient } from "@openid4vc/openid4vp";
import { setGlobalConfig } from "@openid4vc/utils";
import { compactVerify, importX509, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  didLedgerIssuer,
  holderKey,
  issueCredential,
  presentCredential,
  x509Hierarchy,
} from "./support/credentials.js";
import { API_KEYS } from "./support/edges.js";
import { pidQuery, startTestVerifier, type TestVerifier } from "./support/test-verifier.js";

setGlobalConfig({ allowInsecureUrls: true });

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

const pem = (der: string) => `-----BEGIN CERTIFICATE-----\n${der}\n-----END CERTIFICATE-----`;

const callbacks = {
  hash: (data: Uint8Array, alg: string) =>
    new Uint8Array(createHash(alg.replace("-", "").toLowerCase()).update(data).digest()),
  generateRandom: (length: number) => new Uint8Array(length).map(() => Math.floor(Math.random() * 256)),
  async verifyJwt(signer: JwtSigner, jwt: { compact: string }) {
    if (signer.method !== "x5c") return { verified: false as const };
    try {
      const key = await importX509(pem(signer.x5c[0] as string), "ES256");
      await compactVerify(jwt.compact, key);
      const signerJwk = new X509Certificate(Buffer.from(signer.x5c[0] as string, "base64")).publicKey.export({
        format: "jwk",
      }) as JWK as Jwk;
      return { verified: true as const, signerJwk };
    } catch {
      return { verified: false as const };
    }
  },
  getX509CertificateMetadata: (certificate: string) => {
    const names = new X509Certificate(Buffer.from(certificate, "base64")).subjectAltName ?? "";
    const entries = names.split(", ");
    return {
      sanDnsNames: entries.filter((e) => e.startsWith("DNS:")).map((e) => e.slice(4)),
      sanUriNames: entries.filter((e) => e.startsWith("URI:")).map((e) => e.slice(4)),
    };
  },
  fetch: ((input: string | URL | Request, init?: RequestInit) => fetch(input, init)) as CallbackContext["fetch"],
};

describe("interop: @openid4vc/openid4vp wallet with x509_hash and x509_san_dns", () => {
  let verifier: TestVerifier;
  let baseUrl: string;

  beforeAll(async () => {
    const port = await freePort();
    baseUrl = `http://localhost:${port}`;
    verifier = await startTestVerifier({ publicUrl: baseUrl });
    const ca = await x509Hierarchy("Interop Verifier Root CA");
    const leaf = await ca.issuer({ subjectAltNames: [{ type: "dns", value: "localhost" }] });
    verifier.edges.verifierCertificates.set("acme/platform", {
      keyId: "verifier-key",
      x5c: leaf.header.x5c as string[],
      privateJwk: leaf.privateJwk as unknown as Record<string, string>,
    });
    await verifier.app.listen({ host: "127.0.0.1", port });
  });
  afterAll(() => verifier.close());

  for (const prefix of ["x509_hash", "x509_san_dns"] as const) {
    it(`${prefix}: the wallet verifies the request and presents; the session completes`, async () => {
      const created = await fetch(`${baseUrl}/v1/verifier/authorization-request`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": API_KEYS.verifier },
        body: JSON.stringify({ dcql_query: pidQuery(), client_id_prefix: prefix }),
      }).then(async (response) => {
        expect(response.status).toBe(201);
        return (await response.json()) as { session_id: string; client_id: string; authorization_request: string };
      });
      const wallet = new Openid4vpClient({ callbacks: callbacks as never });
      const parsed = wallet.parseOpenid4vpAuthorizationRequest({ authorizationRequest: created.authorization_request });
      const resolved = await wallet.resolveOpenId4vpAuthorizationRequest({
        authorizationRequestPayload: parsed.params as never,
      });
      expect(resolved.client).toMatchObject({ prefix, effective: created.client_id });
      expect(resolved.jar?.signer).toMatchObject({ method: "x5c" });
      const request = resolved.authorizationRequestPayload as unknown as {
        client_id: string;
        nonce: string;
        response_uri: string;
      };
      const holder = holderKey();
      const credential = await issueCredential({ issuer: didLedgerIssuer(verifier.edges), holder });
      const vp = await presentCredential(credential, { given_name: true, family_name: true }, holder, {
        aud: request.client_id,
        nonce: request.nonce,
      });
      const response = await wallet.createOpenid4vpAuthorizationResponse({
        authorizationRequestPayload: resolved.authorizationRequestPayload,
        authorizationResponsePayload: { vp_token: { pid: [vp] } },
      });
      const submitted = await wallet.submitOpenid4vpAuthorizationResponse({
        authorizationRequestPayload: request,
        authorizationResponsePayload: response.authorizationResponsePayload,
      });
      expect(submitted.response.status).toBe(200);
      const result = await fetch(`${baseUrl}/v1/verifier/result/${created.session_id}`, {
        headers: { "x-api-key": API_KEYS.verifier },
      }).then((r) => r.json() as Promise<{ status: string }>);
      expect(result.status).toBe("completed");
    });
  }
});
