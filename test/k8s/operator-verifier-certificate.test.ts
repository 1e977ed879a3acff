import { createHash, X509Certificate } from "node:crypto";
import { keysV1 } from "@attesto/proto";
import { createRpcClient } from "@attesto/runtime/rpc";
import { testCredentialSigner } from "@attesto/runtime/testing";
import { Code, ConnectError } from "@connectrpc/connect";
import { compactVerify, decodeJwt, decodeProtectedHeader, importX509 } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { x509 } from "../../services/trust-registry/test/custody/custody-test-kit.js";
import {
  base64,
  createTenantChain,
  type TenantChain,
} from "../../services/trust-registry/test/custody/tenant-chain-kit.js";
import type { WalletKey } from "../interop/support/keys.js";
import { presentSdJwtVc } from "../interop/support/sd-jwt.js";
import { applyTenant, createOffer } from "../interop/support/tenant.js";
import { holdCredential } from "../interop/support/wallet.js";
import { readExample } from "./support/examples.js";
import type { StoredObject } from "./support/fake-kube-apiserver.js";
import { NS, OperatorOnPlatform } from "./support/operator-on-platform.js";
import { waitFor } from "./support/wait-for.js";

/**
 * VerifierPolicy.verifierCertificateRef end to end, and rotation of the verifier certificate: the
 * operator imports the Secret's chain into the real trust registry's key custody
 * (ImportVerifierCertificate) and tells the real verifier to sign client_id_prefix sessions with it;
 * pointing the policy at a new Secret rotates it (new sessions get the new certificate and client_id,
 * sessions already open keep signing with the one they were created with, and every one of them
 * completes); removing the reference clears the import and new sessions get the platform's
 * certificate again. Ports: offset 12100 (see test/interop/support/platform.ts for the rules).
 */
const PORT_OFFSET = 12_100;
const TENANT = "acme-university";
const POLICY = "acme-university";

let loop: OperatorOnPlatform;
let platformAnchor: string;
let credential: string;
let holder: WalletKey;
let vct: string;

const pemOf = (der: Uint8Array) => new x509.X509Certificate(der).toString("pem");
const x509Hash = (base64Der: string) =>
  createHash("sha256").update(Buffer.from(base64Der, "base64")).digest("base64url");
const fingerprintOf = (der: Uint8Array) => createHash("sha256").update(der).digest("hex");

const tlsSecret = (name: string, chain: TenantChain): StoredObject =>
  ({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name, namespace: NS },
    type: "kubernetes.io/tls",
    stringData: {
      "tls.crt": pemOf(chain.leaf) + pemOf(chain.intermediate) + pemOf(chain.root),
      "tls.key": chain.leafKeyPem,
    },
  }) as StoredObject;

const policy = (spec: Record<string, unknown>): StoredObject =>
  ({
    apiVersion: "attesto.dev/v1alpha1",
    kind: "VerifierPolicy",
    metadata: { name: POLICY, namespace: NS },
    spec: { tenantRef: { name: TENANT }, ...spec },
  }) as StoredObject;

const policyStatus = () =>
  (loop.get("verifierpolicies", POLICY)?.status ?? {}) as {
    verifierCertificateFingerprint?: string;
    verifierCertificateNotAfter?: string;
    conditions?: Array<{ type: string; status: string; reason: string }>;
  };

/** Waits until the policy's status names `fingerprint` (undefined: none) and it is Ready. */
const settled = (fingerprint: string | undefined) =>
  waitFor(
    () =>
      policyStatus().verifierCertificateFingerprint === fingerprint &&
      policyStatus().conditions?.some((c) => c.type === "Ready" && c.status === "True"),
    `VerifierPolicy with verifier certificate ${fingerprint ?? "none"}`,
    30_000,
  ).catch((error: unknown) => {
    throw new Error(`${String(error)}; status: ${JSON.stringify(policyStatus())}`);
  });

interface Session {
  session_id: string;
  client_id: string;
  request_uri: string;
}

async function createSession(): Promise<Session> {
  const response = await fetch(`${loop.platform.url("verifier")}/v1/verifier/authorization-request`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": loop.apiKeyOf(TENANT) },
    body: JSON.stringify({
      client_id_prefix: "x509_hash",
      dcql_query: {
        credentials: [
          { id: "credential", format: "dc+sd-jwt", meta: { vct_values: [vct] }, claims: [{ path: ["given_name"] }] },
        ],
      },
    }),
  });
  const body = await response.text();
  expect(response.status, body).toBe(201);
  return JSON.parse(body) as Session;
}

/** The request object as a wallet gets it now: verified with its x5c leaf, which the client_id must name. */
async function fetchRequest(session: Session) {
  const jwt = await (await fetch(session.request_uri)).text();
  const x5c = decodeProtectedHeader(jwt).x5c as string[];
  const leaf = `-----BEGIN CERTIFICATE-----\n${x5c[0]}\n-----END CERTIFICATE-----`;
  await compactVerify(jwt, await importX509(leaf, "ES256"), { algorithms: ["ES256"] });
  expect(session.client_id).toBe(`x509_hash:${x509Hash(x5c[0] as string)}`);
  return { x5c, claims: decodeJwt(jwt) as { client_id: string; nonce: string; state: string; response_uri: string } };
}

/** A wallet answers the session (direct_post); the result's status. */
async function complete(session: Session): Promise<string> {
  const { claims } = await fetchRequest(session);
  const vp = await presentSdJwtVc(credential, { given_name: true }, holder, {
    aud: claims.client_id,
    nonce: claims.nonce,
  });
  const posted = await fetch(claims.response_uri, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ state: claims.state, vp_token: JSON.stringify({ credential: [vp] }) }).toString(),
  });
  expect(posted.status, await posted.text()).toBe(200);
  const result = await fetch(`${loop.platform.url("verifier")}/v1/verifier/result/${session.session_id}`, {
    headers: { "x-api-key": loop.apiKeyOf(TENANT) },
  });
  return ((await result.json()) as { status: string }).status;
}

/** The chain key custody answers for the tenant's imported verifier certificate, or the gRPC code of its refusal. */
async function importedInCustody(): Promise<string[] | Code> {
  const custody = createRpcClient(keysV1.KeyCustodyService, {
    baseUrl: loop.platform.internalUrl("trust-registry"),
    audience: "trust-registry",
    signer: testCredentialSigner("verifier"),
    timeoutMs: 5_000,
  });
  return custody
    .getVerifierCertificate({ tenant: TENANT, source: keysV1.VerifierCertificateSource.IMPORTED, host: "localhost" })
    .then((response) => response.x5c)
    .catch((error: unknown) => ConnectError.from(error).code);
}

beforeAll(async () => {
  loop = await OperatorOnPlatform.start({ portOffset: PORT_OFFSET, label: "vcert" });
  platformAnchor = ((await loop.platform.trustAnchors()) as string[])[0] as string;
  // A credential issued by another tenant of this platform (registered, so trusted), held by a wallet.
  const issuer = await applyTenant(loop.platform, "vcert-issuer");
  ({ credential, holder, vct } = await holdCredential((await createOffer(loop.platform, issuer)).deep_link));
  loop.apply(readExample("tenant.yaml"));
  await loop.ready("tenants", TENANT);
}, 180_000);

afterAll(() => loop?.close());

describe("VerifierPolicy verifierCertificateRef on the real platform", () => {
  it("imports the chain, rotates it (sessions in flight keep theirs, new ones get the new one), clears it", async () => {
    // No reference: the platform-issued certificate (a leaf of the platform CA for the verifier's host).
    loop.apply([policy({})]);
    await settled(undefined);
    const onPlatform = await createSession();
    const platformLeaf = (await fetchRequest(onPlatform)).x5c;
    expect(
      new X509Certificate(Buffer.from(platformLeaf[1] as string, "base64")).checkIssued(
        new X509Certificate(Buffer.from(platformAnchor, "base64")),
      ),
    ).toBe(true);

    // The tenant's own chain, named by the policy: imported, new sessions sign with it.
    const first = await createTenantChain("ACME Verifier 1", {
      subjectAltNames: [{ type: "dns", value: "localhost" }],
    });
    loop.apply([tlsSecret("acme-verifier-1", first), policy({ verifierCertificateRef: { name: "acme-verifier-1" } })]);
    await settled(fingerprintOf(first.leaf));
    expect(policyStatus().verifierCertificateNotAfter).toBe(
      new x509.X509Certificate(first.leaf).notAfter.toISOString(),
    );
    await expect(importedInCustody()).resolves.toEqual([base64(first.leaf), base64(first.intermediate)]);
    const onFirst = await createSession();
    expect((await fetchRequest(onFirst)).x5c).toEqual([base64(first.leaf), base64(first.intermediate)]);

    // Rotation: the policy names a new Secret; the old sessions are still open.
    const second = await createTenantChain("ACME Verifier 2", {
      subjectAltNames: [{ type: "dns", value: "localhost" }],
    });
    loop.apply([tlsSecret("acme-verifier-2", second), policy({ verifierCertificateRef: { name: "acme-verifier-2" } })]);
    await settled(fingerprintOf(second.leaf));
    const onSecond = await createSession();
    expect((await fetchRequest(onSecond)).x5c).toEqual([base64(second.leaf), base64(second.intermediate)]);
    expect(onSecond.client_id).not.toBe(onFirst.client_id);
    // In flight: each earlier session's request object is still signed by the key it was created
    // with, under its own client_id, and every session completes.
    expect((await fetchRequest(onFirst)).x5c).toEqual([base64(first.leaf), base64(first.intermediate)]);
    expect((await fetchRequest(onPlatform)).x5c).toEqual(platformLeaf);
    for (const session of [onPlatform, onFirst, onSecond]) await expect(complete(session)).resolves.toBe("completed");

    // The reference removed: the import is cleared, new sessions get the platform's certificate again.
    loop.apply([policy({})]);
    await settled(undefined);
    await expect(importedInCustody()).resolves.toBe(Code.FailedPrecondition);
    const backOnPlatform = await createSession();
    const again = (await fetchRequest(backOnPlatform)).x5c;
    expect(again[1]).toBe(platformLeaf[1]);
    await expect(complete(backOnPlatform)).resolves.toBe("completed");
  }, 120_000);

  it("a second policy of the tenant naming another certificate is refused; deleting the one that imported clears it", async () => {
    const chain = await createTenantChain("ACME Verifier 3", {
      subjectAltNames: [{ type: "dns", value: "localhost" }],
    });
    loop.apply([tlsSecret("acme-verifier-3", chain), policy({ verifierCertificateRef: { name: "acme-verifier-3" } })]);
    await settled(fingerprintOf(chain.leaf));
    loop.apply([
      {
        ...policy({ verifierCertificateRef: { name: "acme-verifier-3" } }),
        metadata: { name: "acme-university-second", namespace: NS },
      } as StoredObject,
    ]);
    await waitFor(
      () =>
        (
          loop.get("verifierpolicies", "acme-university-second")?.status as ReturnType<typeof policyStatus> | undefined
        )?.conditions?.find((c) => c.type === "Ready")?.reason === "DuplicateVerifierCertificate",
      "second policy refused",
      30_000,
    );
    loop.server.delete("attesto.dev", "verifierpolicies", NS, "acme-university-second");
    await waitFor(
      () => loop.get("verifierpolicies", "acme-university-second") === undefined,
      "second policy gone",
      30_000,
    );
    // The refused policy imported nothing, so its deletion leaves the import alone.
    await expect(importedInCustody()).resolves.toEqual([base64(chain.leaf), base64(chain.intermediate)]);
    loop.server.delete("attesto.dev", "verifierpolicies", NS, POLICY);
    await waitFor(() => loop.get("verifierpolicies", POLICY) === undefined, "policy gone", 30_000);
    await expect(importedInCustody()).resolves.toBe(Code.FailedPrecondition);
  }, 120_000);
});
