import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyTenant, BADGE_CLAIMS, BADGE_CONFIG, createOffer, type Tenant } from "../hostile/support/flows.js";
import { http, postJson } from "../hostile/support/http.js";
import type { ServiceName } from "../hostile/support/platform.js";
import {
  operatorOn as operatorOfReplica,
  type ReplicaPlatform,
  startReplicaPlatform,
} from "./support/replica-platform.js";

/** Ports 21131..21138 / 21141..21148, internal 22131..22138 / 22141..22148; the balancers 21151..21158. */
const FIRST_REPLICA_PORT_OFFSET = 13_050;
const SECOND_REPLICA_PORT_OFFSET = 13_060;
const BALANCER_PORT_OFFSET = 13_070;

/** What an offer needs: the issuer, its API keys and tenants (trust registry), its types, the ledger. */
const SERVICES: ServiceName[] = ["credential-issuer", "trust-registry", "schema-registry", "ledger"];

const AUTHENTICATE_API_KEY = "attesto.tenant.v1.TenantService/AuthenticateApiKey";

describe("a revoked API key is refused at once by the replica that had it cached", () => {
  let platform: ReplicaPlatform;
  let tenant: Tenant;

  const operatorOn = (replica: 0 | 1) => operatorOfReplica(platform, replica);

  /** AuthenticateApiKey calls replica `replica`'s trust registry has answered (its RPC metrics). */
  async function keyChecksOn(replica: 0 | 1): Promise<number> {
    const metrics = await (await fetch(`${platform.trustRegistryInternalUrls[replica]}/metrics`)).text();
    const line = metrics
      .split("\n")
      .find((candidate) =>
        candidate.startsWith(`rpc_server_requests_total{method="${AUTHENTICATE_API_KEY}",code="ok"}`),
      );
    return line ? Number(line.split(" ").pop()) : 0;
  }

  const offerOn = async (replica: 0 | 1) => {
    platform.pin(replica);
    try {
      return await postJson(
        `${platform.url.issuer}/v1/offers`,
        {
          credential: { config_id: BADGE_CONFIG, claims: BADGE_CLAIMS },
          flow: "pre-authorized",
        },
        { "x-api-key": tenant.apiKey },
      );
    } finally {
      platform.pin();
    }
  };

  beforeAll(async () => {
    platform = await startReplicaPlatform({
      label: "coherence",
      portOffsets: {
        first: FIRST_REPLICA_PORT_OFFSET,
        second: SECOND_REPLICA_PORT_OFFSET,
        balancer: BALANCER_PORT_OFFSET,
      },
      services: SERVICES,
    });
    platform.pin(0);
    try {
      tenant = await applyTenant(platform.url);
    } finally {
      platform.pin();
    }
  }, 150_000);

  afterAll(async () => {
    await platform?.close();
  });

  it("replica 1 asks its trust registry once for the key, serves it from its cache, and refuses it on the very next request after the revocation through replica 0", async () => {
    platform.pin(1);
    try {
      await createOffer(platform.url, tenant.apiKey);
      const asked = await keyChecksOn(1);
      for (let i = 0; i < 3; i += 1) await createOffer(platform.url, tenant.apiKey);
      expect(await keyChecksOn(1), "the key's answer came from replica 1's cache").toBe(asked);
    } finally {
      platform.pin();
    }

    expect(await operatorOn(0).revokeApiKeys({ tenant: tenant.tenant })).toMatchObject({ revoked: 1 });

    const refused = await offerOn(1);
    expect([refused.status, refused.json]).toEqual([401, { error: "unauthorized", message: "Invalid API Key" }]);
    expect((await offerOn(0)).status).toBe(401);
  });

  it("a key issued through replica 0 (ReplaceApiKey) is accepted by replica 1 at once", async () => {
    const replaced = await operatorOn(0).replaceApiKey({ tenant: tenant.tenant });
    expect(replaced.apiKey).not.toBe("");
    tenant = { ...tenant, apiKey: replaced.apiKey };
    expect((await offerOn(1)).status).toBe(201);
    expect((await http(`${platform.url.issuer}/.well-known/openid-credential-issuer/${tenant.tenant}`)).status).toBe(
      200,
    );
  });
});
