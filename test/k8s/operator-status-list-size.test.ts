import { inflateSync } from "node:zlib";
import { issuerConfigurationV1 } from "@attesto/proto";
import { createRpcClient } from "@attesto/runtime/rpc";
import { testCredentialSigner } from "@attesto/runtime/testing";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeSdJwt } from "../interop/support/sd-jwt.js";
import { createOffer, type Tenant } from "../interop/support/tenant.js";
import { InteropWallet, receiveCredential } from "../interop/support/wallet.js";
import { readExample } from "./support/examples.js";
import { conditionOf, OperatorOnPlatform } from "./support/operator-on-platform.js";
import { waitFor } from "./support/wait-for.js";

/**
 * Issuer.spec.statusListSize end to end: the example Tenant and Issuer (statusListSize 262144)
 * applied through the watch path; the operator drives the real platform; a wallet (the OWF client)
 * receives a credential whose status list, fetched from its `uri` and decoded as the Token Status
 * List draft defines it, has that many entries. A size outside the rule leaves the Issuer
 * Ready=False/InvalidSpec and the applied configuration untouched. Ports: offset 20800.
 */
const PORT_OFFSET = 20_800;
const TENANT = "acme-university";

let loop: OperatorOnPlatform;

/** The tenant's issuer configuration as the credential issuer holds it. */
async function appliedConfiguration() {
  const issuers = createRpcClient(issuerConfigurationV1.IssuerService, {
    baseUrl: loop.platform.internalUrl("credential-issuer"),
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
  loop = await OperatorOnPlatform.start({ portOffset: PORT_OFFSET, label: "listsize" });
}, 120_000);

afterAll(() => loop?.close());

describe("Issuer statusListSize on the real platform", () => {
  it("the tenant's credentials point to lists of that many entries; a bad size changes nothing", async () => {
    loop.apply(readExample("tenant.yaml"));
    await loop.ready("tenants", TENANT);
    const apiKey = loop.apiKeyOf(TENANT);
    expect(apiKey).not.toBe("");

    const [example] = readExample("issuer.yaml");
    expect((example!.spec as { statusListSize?: number }).statusListSize).toBe(262_144);
    loop.apply([example!]);
    await loop.ready("issuers", TENANT);
    expect((await appliedConfiguration())?.statusListSize).toBe(262_144);

    const offer = await createOffer(loop.platform, { tenant: TENANT, apiKey } as Tenant);
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
    loop.apply([{ ...example!, spec: { ...(example!.spec as object), statusListSize: 100_000 } }]);
    const refused = await waitFor(
      () => {
        const found = loop.get("issuers", TENANT);
        const ready = conditionOf(found, "Ready");
        return ready?.status === "False" && ready.reason === "InvalidSpec" && found;
      },
      "Issuer refused",
      30_000,
    );
    expect(conditionOf(refused, "Ready")?.message).toBe(
      "spec.statusListSize: must be a power of two from 1024 to 1048576",
    );
    expect((await appliedConfiguration())?.statusListSize).toBe(262_144);
  });
});
