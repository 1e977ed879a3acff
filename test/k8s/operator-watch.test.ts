import { X509Certificate } from "node:crypto";
import {
  addFinalizer,
  createKubeClient,
  ISSUER_FINALIZER,
  KubeConflictError,
  type Platform,
  type RunningOperator,
  startOperator,
  TENANT_FINALIZER,
  type TenantStatus,
} from "@attesto/operator";
import { issuerConfigurationV1, tenantV1 } from "@attesto/proto";
import { Code } from "@connectrpc/connect";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { readExample, toStoredSecret } from "./support/examples.js";
import { FakeKubeApiServer, type StoredObject } from "./support/fake-kube-apiserver.js";
import { OperatorPlatform } from "./support/real-platform.js";
import { createTestCertificates } from "./support/test-certificates.js";
import { waitFor } from "./support/wait-for.js";

/**
 * The real informer/watch machinery of @kubernetes/client-node against a local server speaking the
 * Kubernetes list/watch/patch/status protocol, driving the real trust registry, credential issuer and
 * verifier (support/real-platform.ts; port offset below). Each test declares its own tenant ids, so
 * that the platform's state of one test is not another's.
 */
const GROUP = "attesto.dev";
const VERSION = "v1alpha1";
const NS = "attesto-tenants";

let server: FakeKubeApiServer;
const PORT_OFFSET = 19_200;
let registry: OperatorPlatform;
let run = 0;
/** This test's platform tenant ids: the example Tenant's, and a second one's. */
let T = "";
let G = "";
const operators: RunningOperator[] = [];

async function start(
  options: { identity?: string; leaderElection?: boolean; maxAttempts?: number; platform?: Platform } = {},
) {
  const operator = await startOperator({
    kubeConfig: server.kubeConfig(),
    platform: options.platform ?? registry.platform(),
    identity: options.identity ?? "operator-0",
    leaderElection: options.leaderElection
      ? { namespace: "attesto-system", name: "attesto-operator", leaseDurationSeconds: 5, retryPeriodMs: 50 }
      : false,
    http: { host: "127.0.0.1", port: 0 },
    maxAttempts: options.maxAttempts ?? 5,
    baseDelayMs: 20,
    maxDelayMs: 200,
  });
  operators.push(operator);
  return operator;
}

const tenant = (name = "acme-university") => server.get(GROUP, "tenants", NS, name);
const condition = (object: StoredObject | undefined, type: string) =>
  (object?.status as TenantStatus | undefined)?.conditions?.find((c) => c.type === type);
const secretValue = (name: string, key: string) => {
  const value = (server.get("", "secrets", NS, name)?.data as Record<string, string> | undefined)?.[key];
  return value === undefined ? undefined : Buffer.from(value, "base64").toString("utf8");
};
const events = () =>
  server.list("", "events", NS) as Array<
    StoredObject & { reason: string; type: string; count: number; firstTimestamp: string; lastTimestamp: string }
  >;

/** attesto_operator_reconciles_total{kind="Tenant",result} from the operator's /metrics. */
async function reconciles(operator: RunningOperator, result: string): Promise<number> {
  const text = await (await fetch(`${operator.http!.url}/metrics`)).text();
  const line = text
    .split("\n")
    .find(
      (l) =>
        l.startsWith("attesto_operator_reconciles_total{") &&
        l.includes('kind="Tenant"') &&
        l.includes(`result="${result}"`),
    );
  return line ? Number(line.split(" ").at(-1)) : 0;
}

function applyExample(file: string) {
  for (const document of readExample(file)) {
    // The platform keeps tenant ids and contact emails unique: each test declares its own.
    if (document.kind === "Tenant") {
      document.spec = { ...(document.spec as object), tenantId: T, contact: { email: `registrar@${T}.example` } };
    }
    if (document.kind === "Secret") server.apply("", "v1", "secrets", toStoredSecret(document));
    else
      server.apply(
        GROUP,
        VERSION,
        `${String(document.kind).toLowerCase()}s`.replace("verifierpolicys", "verifierpolicies"),
        document,
      );
  }
}

beforeAll(async () => {
  registry = await OperatorPlatform.start({ portOffset: PORT_OFFSET, label: "operator" });
}, 120_000);

afterAll(async () => {
  await registry?.close();
});

beforeEach(async () => {
  run++;
  T = `acme-university-${run}`;
  G = `globex-${run}`;
  registry.reset();
  server = await new FakeKubeApiServer().start();
});

afterEach(async () => {
  await Promise.all(operators.splice(0).map((operator) => operator.close()));
  await server.close();
});

describe("Tenant through the watch path", () => {
  it("creates the platform tenant, writes the API key once into an owned Secret and reports Ready", async () => {
    await start();
    applyExample("tenant.yaml");

    const ready = await waitFor(() => condition(tenant(), "Ready")?.status === "True" && tenant(), "Tenant Ready");
    const status = ready.status as TenantStatus;
    const record = (await registry.tenant(T))?.tenant;
    expect(record).toMatchObject({
      tenant: T,
      name: "ACME University",
      roles: [tenantV1.Role.ISSUER, tenantV1.Role.VERIFIER],
      status: "APPROVED",
    });
    expect(status).toMatchObject({
      observedGeneration: 1,
      tenantUuid: record?.accountUuid,
      tenantStatus: "APPROVED",
      roles: ["issuer", "verifier"],
      apiKeySecretName: "acme-university-api-key",
      webhookCount: 1,
    });
    expect(status.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual([
      ["Ready", "True", "Reconciled"],
      ["Reconciling", "False", "Reconciled"],
      ["Degraded", "False", "Reconciled"],
    ]);
    expect(ready.metadata.finalizers).toEqual([TENANT_FINALIZER]);

    // The Secret: owned by the Tenant, holding a key the platform accepts.
    const secret = server.get("", "secrets", NS, "acme-university-api-key");
    expect(secret?.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: "Tenant", name: "acme-university", uid: ready.metadata.uid, controller: true }),
    ]);
    const apiKey = secretValue("acme-university-api-key", "api-key");
    expect(await registry.apiKeyValid(apiKey)).toBe(true);
    expect(secretValue("acme-university-api-key", "tenant-id")).toBe(T);

    // Webhooks with the secret read from the referenced Secret.
    const webhooks = await registry.webhooks(T);
    expect(webhooks.webhooks.map((w) => ({ url: w.url, events: w.events }))).toEqual([
      { url: "https://hooks.acme-university.example/attesto", events: ["credential.notarized"] },
    ]);
    expect(webhooks.secret).toBe("replace-me-with-a-long-random-webhook-signing-secret");
    expect(registry.callsOf("ApplyTenant", T)).toHaveLength(1);
    await waitFor(() => events().some((e) => e.reason === "TenantCreated"), "TenantCreated event");

    // Status went through the status subresource, finalizer through a JSON patch with a precondition.
    const statusWrites = server.requests.filter((r) => r.method === "PATCH" && r.path.endsWith("/status"));
    expect(statusWrites.length).toBeGreaterThan(0);
    expect(statusWrites.every((r) => r.contentType === "application/merge-patch+json")).toBe(true);
    const finalizerPatch = server.requests.find(
      (r) =>
        r.method === "PATCH" &&
        r.path.endsWith("/tenants/acme-university") &&
        r.contentType === "application/json-patch+json",
    );
    expect(finalizerPatch?.body).toEqual([
      { op: "test", path: "/metadata/resourceVersion", value: expect.any(String) },
      { op: "add", path: "/metadata/finalizers", value: [TENANT_FINALIZER] },
    ]);
  });

  it("is idempotent: status-only updates and re-lists cost no platform call; a spec change applies again", async () => {
    const operator = await start();
    applyExample("tenant.yaml");
    await waitFor(() => condition(tenant(), "Ready")?.status === "True", "Tenant Ready");
    const applied = registry.callsOf("ApplyTenant", T).length;
    const transitionTime = condition(tenant(), "Ready")?.lastTransitionTime;

    // Watches dropped: the informers re-list and re-watch; nothing changed, nothing is applied.
    // The touch (an annotation: queued) must be reconciled and skipped as up to date; once it was and
    // the queue is idle, an apply it caused would already have been called.
    const skipped = await reconciles(operator, "skipped");
    server.dropWatches();
    server.touch(GROUP, "tenants", NS, "acme-university", { "example.com/touched": "1" });
    await waitFor(async () => (await reconciles(operator, "skipped")) > skipped, "the touched Tenant skipped");
    await operator.controller.queue.idle();
    expect(registry.callsOf("ApplyTenant", T).length).toBe(applied);

    // The spec changes: generation 2 is applied, the API key Secret is not rewritten.
    const keyBefore = secretValue("acme-university-api-key", "api-key");
    const current = tenant()!;
    server.apply(GROUP, VERSION, "tenants", {
      ...current,
      spec: { ...(current.spec as object), roles: { issuer: true, verifier: false } },
    });
    await waitFor(
      () => (tenant()?.status as TenantStatus | undefined)?.observedGeneration === 2,
      "generation 2 observed",
    );
    expect((await registry.tenant(T))?.tenant?.roles).toEqual([tenantV1.Role.ISSUER]);
    expect(registry.callsOf("ApplyTenant", T).length).toBe(applied + 1);
    expect(secretValue("acme-university-api-key", "api-key")).toBe(keyBefore);
    // Ready stayed True: its lastTransitionTime did not move.
    expect(condition(tenant(), "Ready")?.lastTransitionTime).toBe(transitionTime);
  });

  it("retries platform outages with backoff through the queue, recording Warning events", async () => {
    registry.fail("ApplyTenant", Code.Unavailable, 2);
    await start();
    applyExample("tenant.yaml");
    await waitFor(() => condition(tenant(), "Ready")?.status === "True", "Tenant Ready after retries");
    expect(registry.callsOf("ApplyTenant", T).length).toBe(3);
    // One Warning Event counting both failures (aggregated as client-go does), patched over the API.
    const warnings = events().filter((e) => e.type === "Warning");
    expect(warnings.map((e) => [e.reason, e.count])).toEqual([["PlatformUnavailable", 2]]);
    expect(warnings[0]?.lastTimestamp).not.toBe(warnings[0]?.firstTimestamp);
    const eventPatches = server.requests.filter((r) => r.method === "PATCH" && r.path.includes("/events/"));
    expect(eventPatches.map((r) => [r.contentType, (r.body as { count: number }).count])).toEqual([
      ["application/merge-patch+json", 2],
    ]);
    expect(condition(tenant(), "Degraded")).toMatchObject({ status: "False" });
  });

  it("gives up after the bounded number of attempts and says so in status", async () => {
    registry.fail("ApplyTenant", Code.Unavailable, 100);
    const operator = await start({ maxAttempts: 3 });
    applyExample("tenant.yaml");
    await waitFor(() => condition(tenant(), "Reconciling")?.reason === "RetriesExhausted", "retries exhausted");
    expect(registry.callsOf("ApplyTenant", T).length).toBe(3);
    expect(condition(tenant(), "Ready")).toMatchObject({ status: "False", reason: "PlatformUnavailable" });
    expect(condition(tenant(), "Degraded")).toMatchObject({ status: "True", reason: "RetriesExhausted" });
    expect(events().some((e) => e.reason === "RetriesExhausted")).toBe(true);
    // Nothing queued, running or waiting for a retry timer: no further call can come by itself.
    await operator.controller.queue.idle();
    expect(operator.controller.queue.retrying).toBe(0);
    expect(registry.callsOf("ApplyTenant", T).length).toBe(3);
  });

  it("on delete deletes (deactivates) the platform tenant, removes the finalizer with a precondition, and the Secret goes", async () => {
    await start();
    applyExample("tenant.yaml");
    await waitFor(() => condition(tenant(), "Ready")?.status === "True", "Tenant Ready");
    const apiKey = secretValue("acme-university-api-key", "api-key");

    server.delete(GROUP, "tenants", NS, "acme-university");
    await waitFor(() => tenant() === undefined, "Tenant gone");
    expect(registry.callsOf("DeleteTenant", T)).toHaveLength(1);
    // Deactivated: unknown to the platform's APIs, its key refused.
    expect(await registry.tenant(T)).toBeUndefined();
    expect(await registry.apiKeyValid(apiKey)).toBe(false);
    expect(server.get("", "secrets", NS, "acme-university-api-key")).toBeUndefined();
    const removal = server.requests.filter((r) => r.contentType === "application/json-patch+json").at(-1);
    expect(removal?.body).toEqual([
      { op: "test", path: "/metadata/resourceVersion", value: expect.any(String) },
      { op: "test", path: "/metadata/finalizers/0", value: TENANT_FINALIZER },
      { op: "remove", path: "/metadata/finalizers/0" },
    ]);
    expect(events().map((e) => e.reason)).toContain("PlatformTenantDeleted");
  });

  it("refuses a finalizer patch made on a stale resourceVersion", async () => {
    server.apply(GROUP, VERSION, "tenants", readExample("tenant.yaml")[0]!);
    const stale = tenant()!;
    server.touch(GROUP, "tenants", NS, "acme-university", { "example.com/editor": "someone-else" });
    const kube = createKubeClient(server.kubeConfig());
    await expect(addFinalizer(kube, "Tenant", stale as never, TENANT_FINALIZER)).rejects.toBeInstanceOf(
      KubeConflictError,
    );
    expect(tenant()?.metadata.finalizers).toBeUndefined();
    await addFinalizer(kube, "Tenant", tenant() as never, TENANT_FINALIZER);
    expect(tenant()?.metadata.finalizers).toEqual([TENANT_FINALIZER]);
  });
});

describe("Issuer and VerifierPolicy through the watch path", () => {
  it("are applied to the platform once the Tenant is Ready (the example YAML)", async () => {
    await start();
    // Dependents first: they wait for the Tenant and are queued again when it becomes Ready.
    applyExample("issuer.yaml");
    applyExample("verifier-policy.yaml");
    await waitFor(
      () => condition(server.get(GROUP, "issuers", NS, "acme-university"), "Ready")?.reason === "TenantNotFound",
      "Issuer waiting for its Tenant",
    );
    applyExample("tenant.yaml");

    const issuer = await waitFor(() => {
      const found = server.get(GROUP, "issuers", NS, "acme-university");
      return condition(found, "Ready")?.status === "True" && found;
    }, "Issuer Ready");
    const platformCertificate = await registry.signingCertificate(T);
    expect(issuer.status).toMatchObject({
      observedGeneration: 1,
      tenantId: T,
      credentialConfigurationIds: ["university-diploma"],
      signingKeyId: platformCertificate.keyId,
      certificateFingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
      enforcement: "Enforced",
    });
    expect(condition(issuer, "Ready")?.reason).toBe("Applied");
    expect(issuer.metadata.finalizers).toEqual([ISSUER_FINALIZER]);
    // What examples/issuer.yaml declares, as the credential issuer received it.
    expect(await registry.issuerConfiguration(T)).toMatchObject({
      issuerName: `${NS}/acme-university`,
      credentialConfigurations: [
        {
          id: "university-diploma",
          display: [
            {
              name: "ACME University Diploma",
              locale: "en-US",
              backgroundColor: "#12107C",
              textColor: "#FFFFFF",
            },
          ],
        },
      ],
      signingMode: issuerConfigurationV1.SigningMode.X509,
      signingKeyId: platformCertificate.keyId,
      defaultOfferTtlSeconds: 1800,
      statusListSize: 262_144,
    });

    const policy = await waitFor(() => {
      const found = server.get(GROUP, "verifierpolicies", NS, "acme-university");
      return condition(found, "Ready")?.status === "True" && found;
    }, "VerifierPolicy Ready");
    expect(policy.status).toMatchObject({
      tenantId: T,
      trustedDidCount: 1,
      x509RootFingerprints: [],
      policyDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
      enforcement: "Enforced",
    });
    expect(condition(policy, "Ready")?.reason).toBe("Applied");
    expect((await registry.policy(T, "acme-university"))?.digest).toBe(
      (policy.status as { policyDigest?: string }).policyDigest,
    );
  });

  it("deleting everything: the Tenant waits for its Issuer, whose finalizer removes the configuration first", async () => {
    await start();
    applyExample("tenant.yaml");
    applyExample("issuer.yaml");
    await waitFor(
      () => condition(server.get(GROUP, "issuers", NS, "acme-university"), "Ready")?.reason === "Applied",
      "Issuer applied",
    );
    server.delete(GROUP, "tenants", NS, "acme-university");
    await waitFor(() => condition(tenant(), "Degraded")?.reason === "TenantInUse", "Tenant blocked by its Issuer");
    expect(condition(tenant(), "Ready")?.message).toContain("Issuer/attesto-tenants/acme-university");
    expect(registry.callsOf("DeleteTenant", T)).toHaveLength(0);
    expect(events().some((e) => e.reason === "TenantInUse" && e.type === "Warning")).toBe(true);

    server.delete(GROUP, "issuers", NS, "acme-university");
    await waitFor(() => tenant() === undefined, "Tenant gone after its Issuer");
    expect(server.get(GROUP, "issuers", NS, "acme-university")).toBeUndefined();
    expect(await registry.issuerConfiguration(T)).toBeUndefined();
    expect(registry.callsOf("DeleteIssuerConfiguration", T)).toHaveLength(1);
    expect(registry.callsOf("DeleteTenant", T)).toHaveLength(1);
    expect(await registry.tenant(T)).toBeUndefined();
  });

  it("certificateRef: a bad tls Secret is Degraded, the fixed one is imported into key custody, deletion clears it", async () => {
    await start();
    applyExample("tenant.yaml");
    const own = await createTestCertificates("acme-university-own", {
      now: new Date(),
      issuer: registry.issuerOf(T),
    });
    const stranger = await createTestCertificates("stranger", { now: new Date() });
    const tlsSecret = (name: string, key: string) =>
      toStoredSecret({
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name, namespace: NS },
        type: "kubernetes.io/tls",
        stringData: { "tls.crt": own.leafPem + own.rootPem, "tls.key": key },
      });
    server.apply("", "v1", "secrets", tlsSecret("acme-university-tls", stranger.leafKeyPem));
    const [example] = readExample("issuer.yaml");
    const issuerWith = (secretName: string) => ({
      ...example!,
      spec: { ...(example!.spec as object), certificateRef: { name: secretName } },
    });
    server.apply(GROUP, VERSION, "issuers", issuerWith("acme-university-tls"));
    const degraded = await waitFor(() => {
      const current = server.get(GROUP, "issuers", NS, "acme-university");
      return condition(current, "Degraded")?.status === "True" && current;
    }, "Issuer Degraded by its Secret");
    expect(condition(degraded, "Ready")).toMatchObject({ status: "False", reason: "InvalidCertificate" });
    expect(condition(degraded, "Ready")?.message).toBe(
      "Secret acme-university-tls: private_key_pem does not match the leaf certificate's public key",
    );
    expect(events().some((e) => e.reason === "InvalidCertificate" && e.type === "Warning")).toBe(true);
    // Nothing imported: custody still signs with the platform-issued certificate.
    expect((await registry.signingCertificate(T)).x5c[0]).not.toBe(own.leafDer);

    // A good Secret, named by a new generation of the Issuer.
    server.apply("", "v1", "secrets", tlsSecret("acme-university-tls-2", own.leafKeyPem));
    server.apply(GROUP, VERSION, "issuers", issuerWith("acme-university-tls-2"));
    const ready = await waitFor(() => {
      const current = server.get(GROUP, "issuers", NS, "acme-university");
      return condition(current, "Ready")?.status === "True" && current;
    }, "Issuer Ready with its own certificate");
    const imported = await registry.signingCertificate(T);
    expect(imported.x5c).toEqual([own.leafDer]);
    expect(imported.trustAnchor).toBe(own.rootDer);
    const leaf = new X509Certificate(Buffer.from(own.leafDer, "base64"));
    expect(ready.status).toMatchObject({
      observedGeneration: 2,
      signingKeyId: imported.keyId,
      certificateFingerprint: leaf.fingerprint256.replace(/:/g, "").toLowerCase(),
      certificateNotAfter: new Date(leaf.validTo).toISOString(),
    });
    expect(condition(ready, "Degraded")?.status).toBe("False");
    expect((await registry.issuerConfiguration(T))?.signingKeyId).toBe(imported.keyId);

    server.delete(GROUP, "issuers", NS, "acme-university");
    await waitFor(() => server.get(GROUP, "issuers", NS, "acme-university") === undefined, "Issuer gone");
    expect((await registry.signingCertificate(T)).x5c[0]).not.toBe(own.leafDer);
    expect(await registry.issuerConfiguration(T)).toBeUndefined();
  });

  it("an Issuer naming a type the tenant does not have is Degraded with the type named", async () => {
    await start();
    applyExample("tenant.yaml");
    const [issuer] = readExample("issuer.yaml");
    server.apply(GROUP, VERSION, "issuers", {
      ...issuer!,
      spec: { ...(issuer!.spec as object), credentialConfigurations: [{ type: "unknown-type", version: "v9" }] },
    });
    const found = await waitFor(() => {
      const current = server.get(GROUP, "issuers", NS, "acme-university");
      return condition(current, "Degraded")?.status === "True" && current;
    }, "Issuer Degraded");
    expect(condition(found, "Ready")).toMatchObject({ status: "False", reason: "UnknownCredentialConfiguration" });
    expect(condition(found, "Ready")?.message).toContain("unknown-type@v9");
  });
});

describe("watch recovery: 410 Gone and bookmarks", () => {
  const tenantWatches = () =>
    server.requests.filter((r) => r.method === "GET" && r.path.endsWith("/tenants") && r.query.watch === "true");
  const tenantLists = () =>
    server.requests.filter((r) => r.method === "GET" && r.path.endsWith("/tenants") && r.query.watch !== "true");
  const globex = () => ({
    ...readExample("tenant.yaml")[0]!,
    metadata: { name: "globex", namespace: NS },
    spec: { organizationName: "Globex", tenantId: G },
  });
  const applies = (tenantId: string) => registry.callsOf("ApplyTenant", tenantId).length;

  it.each(["event", "http"] as const)(
    "a watch expired during a gap (410 Gone as %s) re-lists: what changed meanwhile is reconciled once, nothing twice",
    async (answer) => {
      server.expiredWatchAnswer = answer;
      const operator = await start();
      applyExample("tenant.yaml");
      await waitFor(() => condition(tenant(), "Ready")?.status === "True", "Tenant Ready");
      expect(applies(T)).toBe(1);
      const lists = tenantLists().length;

      // The informers lose the apiserver; meanwhile a spec changes, a Tenant is created, and the
      // apiserver compacts its history past the informers' resourceVersion.
      server.holdWatches();
      await waitFor(() => server.heldWatchCount === 3, "the informers waiting to watch again");
      const current = tenant()!;
      server.apply(GROUP, VERSION, "tenants", {
        ...current,
        spec: { ...(current.spec as object), roles: { issuer: true, verifier: false } },
      });
      server.apply(GROUP, VERSION, "tenants", globex());
      server.compact();
      server.releaseWatches();

      await waitFor(
        () =>
          (tenant()?.status as TenantStatus | undefined)?.observedGeneration === 2 &&
          condition(tenant("globex"), "Ready")?.status === "True",
        "the changes made during the gap reconciled",
      );
      await operator.controller.queue.idle();
      expect(tenantLists().length).toBe(lists + 1);
      expect(applies(T)).toBe(2);
      expect(applies(G)).toBe(1);
      expect((await registry.tenant(T))?.tenant?.roles).toEqual([tenantV1.Role.ISSUER]);

      // Watching again from the re-list's resourceVersion: later changes arrive as usual.
      server.delete(GROUP, "tenants", NS, "globex");
      await waitFor(() => tenant("globex") === undefined, "globex deleted through the new watch");
      expect(registry.callsOf("DeleteTenant").map((c) => c.tenant)).toEqual([G]);
    },
  );

  it("asks for bookmarks; a watch resumed from a bookmark's resourceVersion needs no re-list after compaction", async () => {
    await start();
    applyExample("tenant.yaml");
    await waitFor(() => condition(tenant(), "Ready")?.status === "True", "Tenant Ready");
    expect(tenantWatches().every((r) => r.query.allowWatchBookmarks === "true")).toBe(true);
    const lists = tenantLists().length;

    // Other kinds move the resourceVersion on; the Tenant watch hears of it only through a bookmark.
    for (let i = 0; i < 3; i++) {
      server.apply("", "v1", "secrets", { metadata: { name: `other-${i}`, namespace: NS }, data: {} });
    }
    const bookmarked = server.resourceVersion;
    expect(Number(bookmarked)).toBeGreaterThan(Number(tenant()!.metadata.resourceVersion));
    server.sendBookmarks();
    server.compact();
    const watches = tenantWatches().length;
    server.dropWatches();
    await waitFor(() => tenantWatches().length > watches, "the Tenant watch resumed");
    expect(tenantWatches().at(-1)?.query.resourceVersion).toBe(bookmarked);
    expect(tenantLists().length).toBe(lists);

    // The resumed watch delivers changes.
    server.apply(GROUP, VERSION, "tenants", globex());
    await waitFor(() => condition(tenant("globex"), "Ready")?.status === "True", "globex reconciled");
  });
});

describe("leader election and the operator's HTTP port", () => {
  it("with two replicas only the leader reconciles; the other takes over when it leaves", async () => {
    const first = await start({ identity: "operator-a", leaderElection: true });
    await waitFor(() => first.isLeader(), "first replica leads");
    const second = await start({ identity: "operator-b", leaderElection: true });

    applyExample("tenant.yaml");
    await waitFor(() => condition(tenant(), "Ready")?.status === "True", "Tenant Ready");
    expect(second.isLeader()).toBe(false);
    const reconciledBy = async (operator: RunningOperator) => {
      const metrics = await (await fetch(`${operator.http?.url}/metrics`)).text();
      return /attesto_operator_reconciles_total\{[^}]*result="success"[^}]*\} [1-9]/.test(metrics);
    };
    // Counted after the status write: wait for it rather than race it.
    await waitFor(() => reconciledBy(first), "leader counted its reconcile");
    expect(await reconciledBy(second)).toBe(false);
    expect(server.get("coordination.k8s.io", "leases", "attesto-system", "attesto-operator")?.spec).toMatchObject({
      holderIdentity: "operator-a",
      renewTime: expect.stringMatching(/\.\d{6}Z$/),
    });

    await first.close();
    operators.splice(operators.indexOf(first), 1);
    await waitFor(() => second.isLeader(), "second replica takes over");
    server.apply(GROUP, VERSION, "tenants", {
      ...readExample("tenant.yaml")[0]!,
      metadata: { name: "globex", namespace: NS },
      spec: { organizationName: "Globex", tenantId: G },
    });
    await waitFor(() => condition(tenant("globex"), "Ready")?.status === "True", "second replica reconciles");
    await waitFor(() => reconciledBy(second), "new leader counted its reconcile");
  });

  it("a reconcile in flight when the Lease is taken away writes nothing more; leading again, it reconciles", async () => {
    // ApplyTenant is held at the operator's edge until the test lets it go (a slow platform call).
    // The gate stands where the transport is: the operator's fenced client hands it its signal.
    const platform = registry.platform();
    const held: AbortSignal[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const gated: Platform = {
      ...platform,
      tenants: new Proxy(platform.tenants, {
        get(target, property, receiver) {
          const method = Reflect.get(target, property, receiver);
          if (property !== "applyTenant") return method;
          return async (request: never, options?: { signal?: AbortSignal }) => {
            const signal = options?.signal;
            if (signal) held.push(signal);
            // In flight until released, or cancelled by its signal as a transport cancels a call.
            await new Promise<void>((resolve, reject) => {
              void gate.then(resolve);
              signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
            });
            return method.call(target, request, options);
          };
        },
      }),
    };
    const operator = await start({ identity: "operator-a", leaderElection: true, platform: gated });
    await waitFor(() => operator.isLeader(), "operator leads");
    applyExample("tenant.yaml");
    await waitFor(() => held.length === 1, "ApplyTenant in flight");

    // Another replica holds the Lease now (as after a network partition): the operator steps down.
    const lease = server.get("coordination.k8s.io", "leases", "attesto-system", "attesto-operator")!;
    server.apply("coordination.k8s.io", "v1", "leases", {
      ...lease,
      spec: { ...(lease.spec as object), holderIdentity: "operator-elsewhere", renewTime: new Date().toISOString() },
    });
    await waitFor(() => !operator.isLeader(), "operator stepped down");
    expect(held[0]?.aborted).toBe(true);
    const writes = () => server.requests.filter((r) => r.method !== "GET" && !r.path.includes("/leases/"));
    const writesBefore = writes().length;
    release();
    await waitFor(async () => (await reconciles(operator, "abandoned")) === 1, "the reconcile abandoned");
    // Nothing reached the platform or the apiserver after the loss: no tenant, no Secret, no status, no Event.
    expect(registry.callsOf("ApplyTenant")).toHaveLength(0);
    expect(await registry.tenant(T)).toBeUndefined();
    expect(writes().slice(writesBefore)).toEqual([]);
    expect(server.get("", "secrets", NS, "acme-university-api-key")).toBeUndefined();
    expect(condition(tenant(), "Reconciling")?.reason).toBe("Progressing");
    // The key waits in the (paused) queue for the next term.
    expect(operator.controller.queue.depth).toBe(1);

    // The other replica releases the Lease: the operator leads again and reconciles the Tenant.
    const taken = server.get("coordination.k8s.io", "leases", "attesto-system", "attesto-operator")!;
    server.apply("coordination.k8s.io", "v1", "leases", {
      ...taken,
      spec: { ...(taken.spec as object), holderIdentity: "" },
    });
    await waitFor(() => condition(tenant(), "Ready")?.status === "True", "Tenant Ready in the next term");
    expect(operator.isLeader()).toBe(true);
    expect(registry.callsOf("ApplyTenant")).toHaveLength(1);
  });

  it("serves /healthz, /readyz and /metrics", async () => {
    const operator = await start();
    const url = operator.http?.url;
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ok", leader: true });
    const metrics = await fetch(`${url}/metrics`);
    expect(metrics.headers.get("content-type")).toContain("text/plain");
    const body = await metrics.text();
    expect(body).toContain("attesto_operator_queue_depth");
    expect(body).toContain("attesto_operator_leader 1");
    expect((await fetch(`${url}/nope`)).status).toBe(404);
  });
});
