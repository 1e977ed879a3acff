import "reflect-metadata";
import { randomBytes, webcrypto } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { didKeyFromPublicJwk, ed25519PublicJwk, generateEd25519Jwk } from "@attesto/protocol";
import * as x509 from "@peculiar/x509";
import { SDJwtVcInstance } from "@sd-jwt/sd-jwt-vc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// The verifier tests' JWS signer and hasher (the same crypto an attacker would use).
import { jwsSigner, type PrivateJwk, sha256 } from "../../services/verifier/test/support/credentials.js";
import {
  applyTenant,
  BADGE_CLAIMS,
  createOrganizationDid,
  type HolderKey,
  issueCredential,
  logIn,
  openSession,
  p256Key,
  presentation,
  type Tenant,
  verificationResult,
} from "./support/flows.js";
import { postForm } from "./support/http.js";
import { startTestPlatform, type TestPlatform } from "./support/platform.js";

/**
 * Forged issuers at the verifier (SD-JWT VC draft, "Issuer verification key"; deny-by-default
 * issuer trust): an attacker who holds a valid holder key and answers a real session, with a
 * credential whose issuer key is not bound to its `iss`, or whose issuer nobody trusts. Each one
 * fails with the check and reason that name what failed; platform-issued credentials of both
 * signing paths still complete.
 */
const PORT_OFFSET = 22_150;

x509.cryptoProvider.set(webcrypto as ReturnType<typeof x509.cryptoProvider.get>);

interface CheckResult {
  check: string;
  status: string;
  reason_code: string;
  message: string;
}

interface Result {
  status: string;
  check_results: CheckResult[];
  presentation_metadata?: { claims: Record<string, unknown>; credential_metadata: Array<{ issuer: string }> };
}

/** An SD-JWT VC as an attacker makes it: any iss, any header, signed with the attacker's key, bound to `holder`. */
async function forge(options: {
  iss: string;
  header: Record<string, unknown>;
  key: PrivateJwk;
  holder: HolderKey;
  vct: string;
}): Promise<string> {
  const instance = new SDJwtVcInstance({
    hasher: sha256,
    hashAlg: "sha-256",
    saltGenerator: () => randomBytes(16).toString("base64url"),
    signAlg: options.key.kty === "OKP" ? "EdDSA" : "ES256",
    signer: jwsSigner(options.key),
  });
  const iat = Math.floor(Date.now() / 1000) - 60;
  return instance.issue(
    {
      iss: options.iss,
      iat,
      exp: iat + 3600,
      vct: options.vct,
      cnf: { jwk: options.holder.publicJwk },
      ...BADGE_CLAIMS,
    },
    { _sd: Object.keys(BADGE_CLAIMS) } as never,
    { header: { typ: "dc+sd-jwt", ...options.header } },
  );
}

const ecdsa = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };

/** A CA of the attacker's (or of a configured partner): root and leaves for any iss and SANs. */
async function certificateAuthority(name: string) {
  const rootKeys = (await webcrypto.subtle.generateKey(ecdsa, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
  const notBefore = new Date(Date.now() - 24 * 3600_000);
  const notAfter = new Date(Date.now() + 30 * 24 * 3600_000);
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomBytes(8).toString("hex"),
    name: `CN=${name}`,
    notBefore,
    notAfter,
    signingAlgorithm: ecdsa,
    keys: rootKeys,
    extensions: [new x509.BasicConstraintsExtension(true, 0, true)],
  });
  return {
    rootPem: root.toString("pem"),
    async leaf(subjectAltNames: { type: "url" | "dns"; value: string }[]) {
      const keys = (await webcrypto.subtle.generateKey(ecdsa, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
      const leaf = await x509.X509CertificateGenerator.create({
        serialNumber: randomBytes(8).toString("hex"),
        subject: `CN=${name} issuer`,
        issuer: root.subject,
        notBefore,
        notAfter,
        signingAlgorithm: ecdsa,
        publicKey: keys.publicKey,
        signingKey: rootKeys.privateKey,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.SubjectAlternativeNameExtension(subjectAltNames),
        ],
      });
      const privateJwk = (await webcrypto.subtle.exportKey("jwk", keys.privateKey)) as PrivateJwk;
      return { x5c: [Buffer.from(leaf.rawData).toString("base64")], privateJwk };
    },
  };
}

/** An issuer's web origin on loopback: JWT VC Issuer Metadata documents by path. */
async function startIssuerOrigin() {
  const documents = new Map<string, unknown>();
  const server: Server = createServer((request, response) => {
    const document = documents.get(request.url ?? "");
    response.writeHead(document === undefined ? 404 : 200, { "content-type": "application/json" });
    response.end(JSON.stringify(document ?? { error: "not_found" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    documents,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("hostile: forged issuers at the verifier", () => {
  let platform: TestPlatform;
  let tenant: Tenant;
  let tenantIss: string;
  let vct: string;
  let web: Awaited<ReturnType<typeof startIssuerOrigin>>;
  let partner: Awaited<ReturnType<typeof certificateAuthority>>;

  beforeAll(async () => {
    web = await startIssuerOrigin();
    partner = await certificateAuthority("Configured Partner Root");
    platform = await startTestPlatform({
      portOffset: PORT_OFFSET,
      label: "hostile_if",
      env: {
        // Explicit configuration, not a bypass: the guard lets the verifier reach this one loopback origin.
        OUTBOUND_ALLOW_HOSTS: web.hostPort,
        // A root the verifier's operator trusts: its chains anchor, so only the SAN binding can fail.
        VERIFIER_TRUSTED_X509_ROOTS_PEM: partner.rootPem,
      },
    });
    tenant = await applyTenant(platform.url);
    tenantIss = `${platform.url.issuer}/${tenant.tenant}`;
    vct = `${platform.url.schema}/schemas/employee-badge/v1`;
  });
  afterAll(async () => {
    await platform?.close();
    await web?.close();
  });

  /** Presents `credential` (held with `holder`) to a fresh session of the tenant and returns the result. */
  async function verify(
    credential: string,
    holder: HolderKey,
    mode: "fail_fast" | "run_all" = "run_all",
  ): Promise<Result> {
    const session = await openSession(platform.url, tenant.apiKey);
    const vp = await presentation({ credential, holder }, session);
    const submitted = await postForm(`${platform.url.verifier}/v1/verifier/presentation`, {
      state: session.request.state,
      vp_token: JSON.stringify({ badge: [vp] }),
      verification_mode: mode,
    });
    expect(submitted.status).toBe(200);
    const result = await verificationResult(platform.url, tenant.apiKey, session.session_id);
    return JSON.parse(result.text) as Result;
  }

  function expectFailure(result: Result, check: string, reasonCode: string) {
    expect(result.status).toBe("failed");
    expect(result.presentation_metadata).toBeUndefined();
    const found = result.check_results.find((c) => c.check === check);
    expect(found, JSON.stringify(result.check_results)).toMatchObject({ status: "failed", reason_code: reasonCode });
  }

  const attackerDidKey = () => {
    const key = generateEd25519Jwk() as PrivateJwk;
    const did = didKeyFromPublicJwk(ed25519PublicJwk(key as never));
    return { key, did, kid: `${did}#${did.slice("did:key:".length)}` };
  };

  it("an https iss of a real tenant signed by a foreign did:key: issuer_signature, the key is not in its metadata", async () => {
    const holder = p256Key();
    const attacker = attackerDidKey();
    const credential = await forge({ iss: tenantIss, header: { kid: attacker.kid }, key: attacker.key, holder, vct });
    const result = await verify(credential, holder);
    expectFailure(result, "issuer_signature", "issuer_key_not_found");
    // Without a kid the tenant's metadata key does not verify the attacker's signature either.
    const noKid = await forge({ iss: tenantIss, header: {}, key: attacker.key, holder, vct });
    const unkeyed = await verify(noKid, holder);
    expect(["issuer_key_not_found", "signature_invalid"]).toContain(
      unkeyed.check_results.find((c) => c.check === "issuer_signature")?.reason_code,
    );
    expect(unkeyed.status).toBe("failed");
  });

  it("a foreign did:key iss: the key binding verifies, issuer_trust refuses it in run_all and in fail_fast", async () => {
    const holder = p256Key();
    const attacker = attackerDidKey();
    const credential = await forge({
      iss: attacker.did,
      header: { kid: attacker.kid },
      key: attacker.key,
      holder,
      vct,
    });
    const all = await verify(credential, holder, "run_all");
    expect(all.check_results.find((c) => c.check === "issuer_signature")?.status).toBe("success");
    expectFailure(all, "issuer_trust", "untrusted_issuer");
    const fast = await verify(credential, holder, "fail_fast");
    expectFailure(fast, "issuer_trust", "untrusted_issuer");
    expect(fast.check_results.find((c) => c.check === "revocation")).toMatchObject({
      status: "skipped",
      reason_code: "previous_check_failed",
    });
  });

  it("a DID iss (the tenant's did:ledger) with the kid of another DID: issuer_signature issuer_mismatch", async () => {
    const holder = p256Key();
    const tenantDid = await createOrganizationDid(platform.url, await logIn(platform.url, tenant));
    const attacker = attackerDidKey();
    const credential = await forge({
      iss: tenantDid.did,
      header: { kid: attacker.kid },
      key: attacker.key,
      holder,
      vct,
    });
    expectFailure(await verify(credential, holder), "issuer_signature", "issuer_mismatch");
  });

  it("x5c from an unknown root: issuer_signature untrusted_certificate_chain", async () => {
    const holder = p256Key();
    const rogue = await certificateAuthority("Rogue Root");
    const leaf = await rogue.leaf([
      { type: "url", value: tenantIss },
      { type: "dns", value: new URL(tenantIss).hostname },
    ]);
    const credential = await forge({ iss: tenantIss, header: { x5c: leaf.x5c }, key: leaf.privateJwk, holder, vct });
    expectFailure(await verify(credential, holder), "issuer_signature", "untrusted_certificate_chain");
  });

  it("x5c of a trusted root whose SAN names another issuer: issuer_signature x5c_san_mismatch", async () => {
    const holder = p256Key();
    const leaf = await partner.leaf([{ type: "url", value: "https://partner.example/issuer" }]);
    const credential = await forge({ iss: tenantIss, header: { x5c: leaf.x5c }, key: leaf.privateJwk, holder, vct });
    expectFailure(await verify(credential, holder), "issuer_signature", "x5c_san_mismatch");
    // The same chain for its own iss binds, and its root is trusted by configuration.
    const own = await forge({
      iss: "https://partner.example/issuer",
      header: { x5c: leaf.x5c },
      key: leaf.privateJwk,
      holder,
      vct,
    });
    const result = await verify(own, holder);
    expect(result.status, JSON.stringify(result.check_results)).toBe("completed");
    expect(result.presentation_metadata?.credential_metadata[0]?.issuer).toBe("https://partner.example/issuer");
  });

  it("JWT VC Issuer Metadata whose issuer differs from iss: issuer_signature issuer_metadata_mismatch; a matching one binds but is not trusted", async () => {
    const holder = p256Key();
    const key = generateEd25519Jwk() as PrivateJwk;
    const iss = `${web.origin}/acme`;
    const jwks = { keys: [{ ...ed25519PublicJwk(key as never), kid: "web-key-1" }] };
    web.documents.set("/.well-known/jwt-vc-issuer/acme", { issuer: `${web.origin}/other`, jwks });
    const credential = await forge({ iss, header: { kid: "web-key-1" }, key, holder, vct });
    expectFailure(await verify(credential, holder), "issuer_signature", "issuer_metadata_mismatch");

    // A second iss on the same origin, with metadata naming it: the key is bound, the issuer is unknown.
    const boundIss = `${web.origin}/bound`;
    web.documents.set("/.well-known/jwt-vc-issuer/bound", { issuer: boundIss, jwks });
    const bound = await forge({ iss: boundIss, header: { kid: "web-key-1" }, key, holder, vct });
    const result = await verify(bound, holder);
    expect(result.check_results.find((c) => c.check === "issuer_signature")?.status).toBe("success");
    expectFailure(result, "issuer_trust", "untrusted_issuer");
  });

  it("platform-issued credentials of both signing paths complete, the tenant's iss reported as issuer", async () => {
    // A tenant whose metadata nobody fetched yet: the credential issuer caches its document for a
    // minute, and the tests above fetched the first tenant's before it had a DID-path key.
    const issuer = await applyTenant(platform.url);
    const issuerIss = `${platform.url.issuer}/${issuer.tenant}`;
    for (const x509Path of [false, true]) {
      const issued = await issueCredential(platform.url, issuer, { x509: x509Path });
      const result = await verify(issued.credential, issued.holder);
      expect(result.status, JSON.stringify(result.check_results)).toBe("completed");
      expect(result.check_results.find((c) => c.check === "issuer_trust")).toMatchObject({
        status: "success",
        reason_code: "registered",
      });
      expect(result.presentation_metadata?.credential_metadata[0]?.issuer).toBe(issuerIss);
    }
  });
});
