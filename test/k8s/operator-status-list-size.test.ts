import { inflateSync } from "node:zlib";
import { createPlatform, type IssuerStatus, type RunningOperator, startOperator } from "@attesto/operator";
import { issuerConfigurationV1 } from "@attesto/proto";
import { createRpcClient } from "@attesto/runtime/rpc";
import { TEST_SERVICE_IDENTITIES, testCredentialSigner } from "@attesto/runtime/testing";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type InteropPlatform, startInteropPlatform } from "../interop/support/platform.js";
import { decodeSdJwt } from "../interop/support/sd-jwt.js";
import { createOffer, type Tenant } from "../interop/support/tenant.js";
import { InteropWallet, receiveCredential } from "../interop/support/wallet.js";
import { readExample, toStoredSecret } from "./support/examples.js";
import { FakeKubeApiServer, type StoredObject } from "./support/fake-kube-apiserver.js";
import { waitFor } from "./support/wait-for.js";

/**
 * Issuer.spec.statusListSize end to end: the example Tenant and Issuer (statusListSize 262144)
 * applied through the watch path; the operator drives the real platform; a wallet (the OWF client)
 * receives a credential whose status list, fetched from its `uri` and decoded as the Token Status
 * List draft defines it, has that many entries. A size outside the rule leaves the Issuer
 * Ready=False/InvalidSpec and the applied configuration untouched. Ports: offset 20800.
 */
const PORT_OFFSET = 20_800;
const GROUP = "attesto.dev";
const VERSION = "v1alpha1";
const NS = "attesto-tenants";
const TENANT = "acme-university";

let platform: InteropPlatform;
let server: FakeKubeApiServer;
let operator: RunningOperator;

const condition = (object: StoredObject | undefined, type: string) =>
  (object?.status as IssuerStatus | undefined)?.conditions?.find((c) => c.type === type);

function applyDocuments(documents: StoredObject[]) {
  for (const document of documents) {
    if (document.kind === "Secret") server.apply("", "v1", "secrets", toStoredSecret(document));
    else server.apply(GROUP, VERSION, `${String(document.kind).toLowerCase()}s`, document);
  }
}

/** The tenant's issuer configuration as the credential issuer holds it. */
async function appliedConfiguration() {
  const issuers = createRpcClient(issuerConfigurationV1.IssuerService, {
    baseUrl: platform.internalUrl("credential-issuer"),
    audience: "credential-issuer",
    signer: testCredentialSigner("operator"),
    timeoutMs: 5_000,
  });
  return (await issuers.getIssuerConfiguration({ tenant: TENANT })).configuration;
}

/** Entries of the list at `uri`: `lst` inflated (ZLIB), 8 entries per byte over `bits`. */
async function entriesOfListAt(uri: string): Promise<number> {
  const response = await fetch(uri);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("application/statuslist+jwt");
  const { status_list } = decodeJwt(await response.text()) as { status_list: { bits: number; lst: string } };
  return (inflateSync(Buffer.from(status_list.lst, "base64url")).length * 8) / status_list.bits;
}

beforeAll(async () => {
  platform = await startInteropPlatform({ portOffset: PORT_OFFSET, label: "listsize" });
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
}, 120_000);

afterAll(async () => {
  await operator?.close();
  await server?.close();
  await platform?.close();
});

describe("Issuer statusListSize on the real platform", () => {
  it("the tenant's credentials point to lists of that many entries; a bad size changes nothing", async () => {
    applyDocuments(readExample("tenant.yaml"));
    await waitFor(
      () => condition(server.get(GROUP, "tenants", NS, TENANT), "Ready")?.status === "True",
      "Tenant Ready",
      30_000,
    );
    const keyData = (server.get("", "secrets", NS, `${TENANT}-api-key`)?.data ?? {}) as Record<string, string>;
    const apiKey = Buffer.from(keyData["api-key"] ?? "", "base64").toString("utf8");
    expect(apiKey).not.toBe("");

    const [example] = readExample("issuer.yaml");
    expect((example!.spec as { statusListSize?: number }).statusListSize).toBe(262_144);
    applyDocuments([example!]);
    await waitFor(
      () => condition(server.get(GROUP, "issuers", NS, TENANT), "Ready")?.status === "True",
      "Issuer Ready",
      30_000,
    );
    expect((await appliedConfiguration())?.statusListSize).toBe(262_144);

    const offer = await createOffer(platform, { tenant: TENANT, apiKey } as Tenant);
    const wallet = new InteropWallet();
    const received = await receiveCredential(wallet, offer.deep_link, {
      dpop: true,
      proofKey: wallet.key("ES256"),
      proofKeyReference: "jwk",
    });
    const { idx, uri } = (
      decodeSdJwt(received.credential).payload.status as { status_list: { idx: number; uri: string } }
    ).status_list;
    expect(await entriesOfListAt(uri)).toBe(262_144);
    expect(idx).toBeLessThan(262_144);

    // Not a power of two: the operator refuses the spec before any platform call (the CRD's enum
    // refuses it earlier on a real apiserver); the applied configuration stays as it was.
    applyDocuments([{ ...example!, spec: { ...(example!.spec as object), statusListSize: 100_000 } }]);
    const refused = await waitFor(
      () => {
        const found = server.get(GROUP, "issuers", NS, TENANT);
        const ready = condition(found, "Ready");
        return ready?.status === "False" && ready.reason === "InvalidSpec" && found;
      },
      "Issuer refused",
      30_000,
    );
    expect(condition(refused, "Ready")?.message).toBe(
      "spec.statusListSize: must be a power of two from 1024 to 1048576",
    );
    expect((await appliedConfiguration())?.statusListSize).toBe(262_144);
  });
});
