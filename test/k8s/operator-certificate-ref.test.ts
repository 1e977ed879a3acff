import { createPlatform, type RunningOperator, startOperator, type TenantStatus } from "@attesto/operator";
import { keysV1 } from "@attesto/proto";
import { createRpcClient } from "@attesto/runtime/rpc";
import { TEST_SERVICE_IDENTITIES, testCredentialSigner } from "@attesto/runtime/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { x509 } from "../../services/trust-registry/test/custody/custody-test-kit.js";
import {
  base64,
  createTenantChain,
  type TenantChain,
} from "../../services/trust-registry/test/custody/tenant-chain-kit.js";
import { type InteropPlatform, startInteropPlatform } from "../interop/support/platform.js";
import { decodeSdJwt, validateX5c, verifySdJwtVc } from "../interop/support/sd-jwt.js";
import { createOffer, DIPLOMA_CLAIMS, type Tenant } from "../interop/support/tenant.js";
import { InteropWallet, receiveCredential } from "../interop/support/wallet.js";
import { readExample, toStoredSecret } from "./support/examples.js";
import { FakeKubeApiServer, type StoredObject } from "./support/fake-kube-apiserver.js";
import { waitFor } from "./support/wait-for.js";

/**
 * Issuer.certificateRef end to end: the example Tenant and an Issuer naming a kubernetes.io/tls
 * Secret, applied through the watch path; the operator drives the real platform (trust registry key
 * custody, credential issuer); a wallet (the OWF client) redeems an offer and the credential's x5c
 * is the tenant's own chain. Ports: offset 23260 (see test/interop/support/platform.ts for the rules).
 */
const PORT_OFFSET = 23_260;
const GROUP = "attesto.dev";
const VERSION = "v1alpha1";
const NS = "attesto-tenants";
const TENANT = "acme-university";

let platform: InteropPlatform;
let server: FakeKubeApiServer;
let operator: RunningOperator;
let chain: TenantChain;

const condition = (object: StoredObject | undefined, type: string) =>
  (object?.status as TenantStatus | undefined)?.conditions?.find((c) => c.type === type);
const pemOf = (der: Uint8Array) => new x509.X509Certificate(der).toString("pem");

function applyDocuments(documents: StoredObject[]) {
  for (const document of documents) {
    if (document.kind === "Secret") server.apply("", "v1", "secrets", toStoredSecret(document));
    else server.apply(GROUP, VERSION, `${String(document.kind).toLowerCase()}s`, document);
  }
}

beforeAll(async () => {
  platform = await startInteropPlatform({ portOffset: PORT_OFFSET, label: "certref" });
  server = await new FakeKubeApiServer().start();
  operator = await startOperator({
    kubeConfig: server.kubeConfig(),
    platform: createPlatform({
      trustRegistryUrl: platform.internalUrl("trust-registry"),
      credentialIssuerUrl: platform.internalUrl("credential-issuer"),
      verifierUrl: platform.internalUrl("verifier"),
      identityKey: TEST_SERVICE_IDENTITIES.privateKeys.operator,
      timeoutMs: 10_000,
    }),
    identity: "operator-0",
    leaderElection: false,
    http: { host: "127.0.0.1", port: 0 },
    maxAttempts: 5,
    baseDelayMs: 50,
    maxDelayMs: 500,
  });
  chain = await createTenantChain("ACME University", { issuer: `${platform.url("credential-issuer")}/${TENANT}` });
}, 120_000);

afterAll(async () => {
  await operator?.close();
  await server?.close();
  await platform?.close();
});

describe("Issuer certificateRef on the real platform", () => {
  it("credentials carry the tenant's own chain in x5c; deleting the Issuer goes back to the platform's", async () => {
    applyDocuments(readExample("tenant.yaml"));
    await waitFor(
      () => condition(server.get(GROUP, "tenants", NS, TENANT), "Ready")?.status === "True",
      "Tenant Ready",
      30_000,
    );
    const keyData = (server.get("", "secrets", NS, `${TENANT}-api-key`)?.data ?? {}) as Record<string, string>;
    const apiKey = Buffer.from(keyData["api-key"] ?? "", "base64").toString("utf8");
    expect(apiKey).not.toBe("");

    applyDocuments([
      {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: `${TENANT}-tls`, namespace: NS },
        type: "kubernetes.io/tls",
        stringData: {
          "tls.crt": pemOf(chain.leaf) + pemOf(chain.intermediate) + pemOf(chain.root),
          "tls.key": chain.leafKeySec1Pem ?? chain.leafKeyPem,
        },
      } as StoredObject,
    ]);
    const [example] = readExample("issuer.yaml");
    applyDocuments([
      { ...example!, spec: { ...(example!.spec as object), certificateRef: { name: `${TENANT}-tls` } } },
    ]);
    const issuer = await waitFor(
      () => {
        const found = server.get(GROUP, "issuers", NS, TENANT);
        return condition(found, "Ready")?.status === "True" && found;
      },
      "Issuer Ready",
      30_000,
    );
    const leafCertificate = new x509.X509Certificate(chain.leaf);
    expect(issuer.status).toMatchObject({
      tenantId: TENANT,
      certificateFingerprint: Buffer.from(await leafCertificate.getThumbprint("SHA-256")).toString("hex"),
      certificateNotAfter: leafCertificate.notAfter.toISOString(),
      enforcement: "Enforced",
    });

    // A wallet gets an X.509 credential: signed with the tenant's key, its own chain in x5c.
    const offer = await createOffer(platform, { tenant: TENANT, apiKey } as Tenant);
    const wallet = new InteropWallet();
    const holder = wallet.key("ES256");
    const received = await receiveCredential(wallet, offer.deep_link, {
      dpop: true,
      proofKey: holder,
      proofKeyReference: "jwk",
    });
    const decoded = decodeSdJwt(received.credential);
    expect(decoded.header).toMatchObject({ typ: "dc+sd-jwt", alg: "ES256" });
    expect(decoded.header.x5c).toEqual([base64(chain.leaf), base64(chain.intermediate)]);
    const validated = await validateX5c(decoded.header.x5c as string[], [base64(chain.root)]);
    const verified = await verifySdJwtVc(received.credential, validated.leafKey);
    expect(verified.claims).toMatchObject(DIPLOMA_CLAIMS);
    expect(verified.payload).toMatchObject({ cnf: { jwk: holder.publicJwk } });

    // The Issuer goes: its finalizer clears the import, and custody answers the platform's certificate.
    server.delete(GROUP, "issuers", NS, TENANT);
    await waitFor(() => server.get(GROUP, "issuers", NS, TENANT) === undefined, "Issuer gone", 30_000);
    const custody = createRpcClient(keysV1.KeyCustodyService, {
      baseUrl: platform.internalUrl("trust-registry"),
      audience: "trust-registry",
      signer: testCredentialSigner("credential-issuer"),
      timeoutMs: 5_000,
    });
    const current = await custody.getSigningCertificate({ tenant: TENANT });
    expect(current.x5c[0]).not.toBe(base64(chain.leaf));
    expect(current.trustAnchor).toBe((await platform.trustAnchors())[0]);
  });
});
