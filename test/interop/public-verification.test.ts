/**
 * Interop, verification from public material alone: a verifier that knows only the public specs
 * checks credentials of both signing paths. The SD-JWT VC is verified with @sd-jwt/sd-jwt-vc; the
 * issuer key is resolved by code written here from the SD-JWT VC draft ("Issuer verification key"):
 *
 * - `x5c` header: the chain is validated with @peculiar/x509 up to a trust anchor fetched from the
 *   trust registry's published endpoint, and the credential's https `iss` must equal a
 *   uniformResourceIdentifier subjectAltName of the leaf;
 * - otherwise an https `iss`: JWT VC Issuer Metadata at `{origin}/.well-known/jwt-vc-issuer{path}`,
 *   whose `issuer` must equal `iss`; the key is the one of its `jwks` named by the header's `kid`.
 *
 * Nothing here imports the project's packages: only the platform is started with them (support).
 */
import "reflect-metadata";
import { createHash, createPublicKey, type JsonWebKey, type KeyObject, verify, webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";
import { SDJwtVcInstance } from "@sd-jwt/sd-jwt-vc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type InteropPlatform, startInteropPlatform } from "./support/platform.js";
import {
  applyTenant,
  createOffer,
  createOrganizationDid,
  DIPLOMA_CLAIMS,
  type OrganizationDid,
  type Tenant,
} from "./support/tenant.js";
import { InteropWallet, receiveCredential } from "./support/wallet.js";

x509.cryptoProvider.set(webcrypto as ReturnType<typeof x509.cryptoProvider.get>);

/** Ports 29481..29488 / 30481..30488: see test/interop/support/platform.ts for the offsets in use. */
const PORT_OFFSET = 21_400;

type Json = Record<string, unknown>;
const decodePart = (part: string) => JSON.parse(Buffer.from(part, "base64url").toString("utf8")) as Json;

/** An HTTP GET of a JSON document, as any verifier does it. */
async function getJson(url: string): Promise<Json> {
  const response = await fetch(url, { headers: { accept: "application/json" } });
  if (response.status !== 200) throw new Error(`GET ${url}: HTTP ${response.status}`);
  return (await response.json()) as Json;
}

/** SD-JWT VC draft: the JWT VC Issuer Metadata URL of an https `iss` (well-known between host and path). */
function jwtVcIssuerMetadataUrl(iss: string): string {
  const url = new URL(iss);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
  return `${url.origin}/.well-known/jwt-vc-issuer${path}`;
}

/** The key of an https `iss` from its JWT VC Issuer Metadata, selected by `kid`. */
async function keyFromIssuerMetadata(iss: string, kid: unknown): Promise<KeyObject> {
  const metadata = await getJson(jwtVcIssuerMetadataUrl(iss));
  if (metadata.issuer !== iss) throw new Error(`the metadata names issuer ${String(metadata.issuer)}, not ${iss}`);
  const jwks = (metadata.jwks ?? (metadata.jwks_uri ? await getJson(String(metadata.jwks_uri)) : undefined)) as
    | { keys?: Array<JsonWebKey & { kid?: string }> }
    | undefined;
  const keys = jwks?.keys ?? [];
  const matching = typeof kid === "string" ? keys.filter((key) => key.kid === kid) : keys;
  if (matching.length !== 1) throw new Error(`the metadata has ${matching.length} keys for kid ${String(kid)}`);
  return createPublicKey({ key: matching[0] as JsonWebKey, format: "jwk" });
}

/** The relying party's trust anchors, as the trust registry publishes them (JWK Set with x5c). */
async function publishedAnchors(trustRegistryUrl: string): Promise<x509.X509Certificate[]> {
  const { keys } = (await getJson(`${trustRegistryUrl}/v1/x509/trust-anchors`)) as { keys: Array<{ x5c: string[] }> };
  return keys.map((key) => new x509.X509Certificate(Buffer.from(key.x5c[0] as string, "base64")));
}

/** The leaf key of an `x5c` chain that reaches an anchor and whose leaf names `iss` as a URI SAN. */
async function keyFromX5c(x5c: unknown, iss: string, anchors: x509.X509Certificate[]): Promise<KeyObject> {
  if (!Array.isArray(x5c) || x5c.length === 0) throw new Error("x5c is not a non-empty array");
  const chain = x5c.map((der) => new x509.X509Certificate(Buffer.from(String(der), "base64")));
  const leaf = chain[0] as x509.X509Certificate;
  const path = await new x509.X509ChainBuilder({ certificates: [...chain.slice(1), ...anchors] }).build(leaf);
  const top = path.at(-1) as x509.X509Certificate;
  if (!anchors.some((anchor) => anchor.equal(top))) throw new Error("the chain does not reach a trusted anchor");
  const now = new Date();
  for (const [index, certificate] of path.entries()) {
    const issuer = path[index + 1] ?? certificate;
    if (!(await certificate.verify({ publicKey: issuer.publicKey, date: now }))) {
      throw new Error(`${certificate.subject}: bad signature or outside its validity`);
    }
    if (index > 0 && !certificate.getExtension(x509.BasicConstraintsExtension)?.ca) {
      throw new Error(`${certificate.subject} is not a CA`);
    }
  }
  const uris = (leaf.getExtension(x509.SubjectAlternativeNameExtension)?.names.items ?? [])
    .filter((name) => name.type === "url")
    .map((name) => name.value);
  if (!uris.includes(iss)) throw new Error(`iss ${iss} is not a URI SAN of the leaf (${uris.join(", ") || "none"})`);
  return createPublicKey({ key: Buffer.from(leaf.publicKey.rawData), format: "der", type: "spki" });
}

/** JWS signature check over node:crypto: ES256 (IEEE P1363) or EdDSA. */
function verifyJws(key: KeyObject, data: string, signature: string): boolean {
  const bytes = Buffer.from(signature, "base64url");
  if (key.asymmetricKeyType === "ed25519") return verify(null, Buffer.from(data), key, bytes);
  return verify("sha256", Buffer.from(data), { key, dsaEncoding: "ieee-p1363" }, bytes);
}

/**
 * A verifier from public specs: resolve the issuer key (x5c, else JWT VC Issuer Metadata), then
 * verify the SD-JWT VC (signature, disclosures) with @sd-jwt/sd-jwt-vc.
 */
async function verifyFromPublicMaterial(credential: string, options: { trustRegistryUrl: string }) {
  const [encodedHeader, encodedPayload] = (credential.split("~")[0] as string).split(".");
  const header = decodePart(encodedHeader ?? "");
  const payload = decodePart(encodedPayload ?? "");
  if (header.typ !== "dc+sd-jwt") throw new Error(`typ is ${String(header.typ)}`);
  const iss = String(payload.iss);
  if (!iss.startsWith("https://") && !iss.startsWith("http://")) throw new Error("iss is not an http(s) URL");
  const key =
    header.x5c !== undefined
      ? await keyFromX5c(header.x5c, iss, await publishedAnchors(options.trustRegistryUrl))
      : await keyFromIssuerMetadata(iss, header.kid);
  const instance = new SDJwtVcInstance({
    hasher: (data) =>
      new Uint8Array(
        createHash("sha256")
          .update(typeof data === "string" ? data : Buffer.from(data))
          .digest(),
      ),
    hashAlg: "sha-256",
    verifier: (data, signature) => verifyJws(key, data, signature),
  });
  await instance.verify(credential);
  return { iss, claims: (await instance.getClaims(credential)) as Json };
}

describe("interop: credentials of both signing paths verify from public material alone", () => {
  let platform: InteropPlatform;
  let tenant: Tenant;
  let other: Tenant;
  let did: OrganizationDid;

  beforeAll(async () => {
    platform = await startInteropPlatform({ portOffset: PORT_OFFSET, label: "public" });
    tenant = await applyTenant(platform, "public-issuer");
    other = await applyTenant(platform, "other-issuer");
    did = await createOrganizationDid(platform, tenant);
  }, 120_000);
  afterAll(async () => {
    await platform?.close();
  });

  const issuerOf = (t: Tenant) => `${platform.url("credential-issuer")}/${t.tenant}`;
  const options = () => ({ trustRegistryUrl: platform.url("trust-registry") });

  async function issue(signing: "did" | "x509") {
    const offer = await createOffer(platform, tenant, signing === "did" ? { did } : {});
    const wallet = new InteropWallet();
    const holder = wallet.key(signing === "did" ? "EdDSA" : "ES256");
    const received = await receiveCredential(wallet, offer.deep_link, {
      dpop: signing === "x509",
      proofKey: holder,
      proofKeyReference: "jwk",
    });
    return received.credential;
  }

  /** Rewrites the issuer-signed JWT's payload (the signature then belongs to the original). */
  const withPayload = (credential: string, change: (payload: Json) => Json) => {
    const [jwt, ...rest] = credential.split("~");
    const [header, payload, signature] = (jwt as string).split(".");
    const changed = Buffer.from(JSON.stringify(change(decodePart(payload as string)))).toString("base64url");
    return [`${header}.${changed}.${signature}`, ...rest].join("~");
  };

  it("DID path: the key comes from the tenant's JWT VC Issuer Metadata, by the kid the credential carries", async () => {
    const credential = await issue("did");
    const verified = await verifyFromPublicMaterial(credential, options());
    expect(verified.iss).toBe(issuerOf(tenant));
    expect(verified.claims).toMatchObject(DIPLOMA_CLAIMS);
    const metadata = await getJson(jwtVcIssuerMetadataUrl(issuerOf(tenant)));
    expect(metadata.issuer).toBe(issuerOf(tenant));
    expect((metadata.jwks as { keys: Json[] }).keys).toContainEqual({
      kty: "OKP",
      crv: "Ed25519",
      x: did.public_key_jwk.x,
      kid: did.key_id,
      alg: "EdDSA",
      use: "sig",
    });
  });

  it("X.509 path: x5c chains to the published anchor and its leaf names iss as URI SAN", async () => {
    const credential = await issue("x509");
    const verified = await verifyFromPublicMaterial(credential, options());
    expect(verified.iss).toBe(issuerOf(tenant));
    expect(verified.claims).toMatchObject(DIPLOMA_CLAIMS);
    const pem = await (await fetch(`${platform.url("trust-registry")}/v1/x509/trust-anchors.pem`)).text();
    const anchors = await publishedAnchors(platform.url("trust-registry"));
    expect(anchors.map((anchor) => anchor.toString("pem").trim())).toEqual([pem.trim()]);
  });

  it("the resolution has teeth: another tenant's iss on either path does not verify", async () => {
    for (const signing of ["did", "x509"] as const) {
      const credential = await issue(signing);
      const claimingOther = withPayload(credential, (payload) => ({ ...payload, iss: issuerOf(other) }));
      await expect(verifyFromPublicMaterial(claimingOther, options())).rejects.toThrow(
        signing === "did" ? /the metadata has 0 keys for kid/ : /is not a URI SAN of the leaf/,
      );
      // Unchanged, it verifies (the failure above is the issuer binding, not the test's tampering).
      await expect(verifyFromPublicMaterial(credential, options())).resolves.toMatchObject({ iss: issuerOf(tenant) });
    }
  });

  it("a tampered payload with the right iss still fails the signature", async () => {
    const credential = await issue("did");
    const tampered = withPayload(credential, (payload) => ({ ...payload, exp: Number(payload.exp) + 1 }));
    await expect(verifyFromPublicMaterial(tampered, options())).rejects.toThrow(/Signature/i);
  });
});
