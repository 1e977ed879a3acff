import { createHash } from "node:crypto";
import {
  Controller,
  type CustomResource,
  createEventRecorder,
  ISSUER_FINALIZER,
  IssuerReconciler,
  LeaderElector,
  mergeConditions,
  policyDigestOf,
  TENANT_FINALIZER,
  TenantReconciler,
  VERIFIER_POLICY_FINALIZER,
  VerifierPolicyReconciler,
  WorkQueue,
  zTenantId,
  zVerifierPolicySpec,
} from "@attesto/operator";
import { issuerConfigurationV1, tenantV1, verifierPolicyV1 } from "@attesto/proto";
import { Code } from "@connectrpc/connect";
import { beforeEach, describe, expect, it } from "vitest";
import { InMemoryKube } from "./support/in-memory-kube.js";
import { InMemoryTrustRegistry } from "./support/platform-double.js";
import { createTestCertificates, testIssuerOf } from "./support/test-certificates.js";

/** Reconcile logic with an injected Kubernetes client (in memory) and an in-memory TenantService. */
const NS = "tenants";
/** The one clock of this suite: the operator, the platform double and every certificate read it. */
const NOW = new Date("2026-11-22T10:00:00.000Z");
const testClock = () => NOW;

let kube: InMemoryKube;
let registry: InMemoryTrustRegistry;

function controller(options: { maxAttempts?: number } = {}) {
  const deps = { kube, platform: registry.platform(), cache: kube, now: testClock };
  const built = new Controller({
    kube,
    cache: kube,
    reconcilers: [new TenantReconciler(deps), new IssuerReconciler(deps), new VerifierPolicyReconciler(deps)],
    events: createEventRecorder({ kube, component: "attesto-operator", instance: "test", now: testClock }),
    now: testClock,
    maxAttempts: options.maxAttempts ?? 4,
    baseDelayMs: 5,
    maxDelayMs: 20,
  });
  built.resume();
  return built;
}

async function settle(built: Controller, ms = 150) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    await built.queue.idle();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await built.queue.idle();
}

function addTenant(spec: Record<string, unknown> = {}, name = "acme") {
  return kube.add("Tenant", {
    metadata: { name, namespace: NS },
    spec: { organizationName: "ACME", tenantId: name, ...spec },
  });
}

const conditionsOf = (resource: CustomResource | undefined) =>
  Object.fromEntries((resource?.status?.conditions ?? []).map((c) => [c.type, `${c.status}/${c.reason}`]));

beforeEach(() => {
  kube = new InMemoryKube();
  registry = new InMemoryTrustRegistry(testClock);
});

describe("tenant id rules (same as /v1/apply)", () => {
  it.each([
    ["acme", true],
    ["a", true],
    ["acme_university-2", true],
    ["x".repeat(100), true],
    ["x".repeat(101), false],
    ["", false],
    ["ACME", false],
    ["acme university", false],
    ["u-acme", false],
    ["svc-acme", false],
    ["admin-x", false],
    ["api-x", false],
    ["www-x", false],
    ["uacme", true],
  ])("%s -> %s", (id, valid) => {
    expect(zTenantId.safeParse(id).success).toBe(valid);
  });
});

describe("conditions", () => {
  it("moves lastTransitionTime only when the status flips", () => {
    const t1 = new Date("2026-01-01T00:00:00Z");
    const t2 = new Date("2026-01-02T00:00:00Z");
    const first = mergeConditions([], [{ type: "Ready", status: "False", reason: "Progressing", message: "a" }], 1, t1);
    const sameStatus = mergeConditions(
      first,
      [{ type: "Ready", status: "False", reason: "Other", message: "b" }],
      2,
      t2,
    );
    expect(sameStatus[0]).toMatchObject({
      reason: "Other",
      observedGeneration: 2,
      lastTransitionTime: t1.toISOString(),
    });
    const flipped = mergeConditions(
      sameStatus,
      [{ type: "Ready", status: "True", reason: "Reconciled", message: "c" }],
      2,
      t2,
    );
    expect(flipped[0]?.lastTransitionTime).toBe(t2.toISOString());
  });
});

describe("work queue", () => {
  it("backs off exponentially, gives up after maxAttempts, and never runs one key twice at once", async () => {
    const attempts: number[] = [];
    let running = 0;
    let overlapped = false;
    let exhausted: number | undefined;
    const queue = new WorkQueue({
      async process(_key, attempt) {
        running++;
        if (running > 1) overlapped = true;
        attempts.push(attempt);
        await new Promise((resolve) => setTimeout(resolve, 2));
        running--;
        throw new Error("down");
      },
      onExhausted: (_key, _error, count) => {
        exhausted = count;
      },
      baseDelayMs: 4,
      maxDelayMs: 16,
      maxAttempts: 4,
    });
    // base * 2^(attempt-1), capped at maxDelayMs, with +-10% jitter.
    [1, 2, 4, 4, 4, 4].forEach((factor, index) => {
      const delay = queue.backoffMs(index + 1);
      expect(delay).toBeGreaterThanOrEqual(Math.floor(4 * factor * 0.9));
      expect(delay).toBeLessThanOrEqual(Math.ceil(4 * factor * 1.1));
    });
    queue.resume();
    queue.add("k");
    queue.add("k");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(attempts).toEqual([1, 2, 3, 4]);
    expect(exhausted).toBe(4);
    expect(overlapped).toBe(false);
    queue.stop();
  });

  it("holds keys while paused (a follower) and processes them once leading", async () => {
    const seen: string[] = [];
    const queue = new WorkQueue({
      process: async (key) => {
        seen.push(key);
        return undefined;
      },
      onExhausted: () => {},
      baseDelayMs: 1,
      maxDelayMs: 1,
      maxAttempts: 1,
    });
    queue.add("a");
    queue.add("b");
    expect(queue.depth).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen).toEqual([]);
    queue.resume();
    await queue.idle();
    expect(seen).toEqual(["a", "b"]);
  });
});

describe("TenantReconciler through the controller", () => {
  it("applies, adds the finalizer with a resourceVersion precondition, writes the key once, then skips", async () => {
    const built = controller();
    const resource = addTenant({ roles: { issuer: true, verifier: false } });
    const resourceVersion = resource.metadata.resourceVersion;
    built.onEvent("Tenant", "add", resource);
    await settle(built);

    const stored = kube.get("Tenant", NS, "acme");
    expect(conditionsOf(stored)).toEqual({
      Ready: "True/Reconciled",
      Reconciling: "False/Reconciled",
      Degraded: "False/Reconciled",
    });
    expect(stored?.status?.observedGeneration).toBe(1);
    expect(kube.jsonPatches[0]?.operations).toEqual([
      { op: "test", path: "/metadata/resourceVersion", value: resourceVersion },
      { op: "add", path: "/metadata/finalizers", value: [TENANT_FINALIZER] },
    ]);
    expect(registry.tenants.get("acme")).toMatchObject({ isIssuer: true, isVerifier: false });
    const apiKey = kube.secretValue(NS, "acme-api-key", "api-key");
    expect(registry.tenants.get("acme")?.apiKeys).toEqual([apiKey]);
    expect(kube.secrets.get(`${NS}/acme-api-key`)?.metadata.ownerReferences).toEqual([
      {
        apiVersion: "attesto.dev/v1alpha1",
        kind: "Tenant",
        name: "acme",
        uid: "uid-acme",
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(kube.secretValue(NS, "acme-api-key", "tenant-id")).toBe("acme");
    // No webhooks declared: the platform generated a signing secret, stored beside the key.
    expect(kube.secretValue(NS, "acme-api-key", "webhook-secret")).toBe(registry.tenants.get("acme")?.webhookSecret);

    // observedGeneration matches: an update event for the same generation costs nothing.
    const writes = kube.statusWrites;
    built.onEvent("Tenant", "update", {
      ...kube.get("Tenant", NS, "acme")!,
      metadata: { ...kube.get("Tenant", NS, "acme")!.metadata, annotations: { a: "b" } },
    });
    await settle(built);
    expect(registry.callsOf("ApplyTenant")).toHaveLength(1);
    expect(kube.statusWrites).toBe(writes);
  });

  it("recovers a lost API key Secret by replacing the key (apiKeyRecovery: Replace)", async () => {
    registry.tenants.set("acme", {
      uuid: "11111111-1111-4111-8111-111111111111",
      tenant: "acme",
      name: "ACME",
      email: "",
      isIssuer: true,
      isVerifier: true,
      apiKeys: ["attesto_lost"],
      webhooks: [],
      webhookSecret: "x",
    });
    const built = controller();
    built.onEvent("Tenant", "add", addTenant());
    await settle(built);
    const apiKey = kube.secretValue(NS, "acme-api-key", "api-key");
    expect(apiKey).toMatch(/^attesto_test_/);
    expect(registry.tenants.get("acme")?.apiKeys).toEqual([apiKey]);
    expect(kube.events.map((e) => e.reason)).toContain("ApiKeyReplaced");
  });

  it("with apiKeyRecovery: None a lost key leaves the tenant Degraded, with an Event", async () => {
    registry.tenants.set("acme", {
      uuid: "u",
      tenant: "acme",
      name: "ACME",
      email: "",
      isIssuer: true,
      isVerifier: true,
      apiKeys: ["attesto_lost"],
      webhooks: [],
      webhookSecret: "x",
    });
    const built = controller();
    built.onEvent("Tenant", "add", addTenant({ apiKeyRecovery: "None" }));
    await settle(built);
    expect(conditionsOf(kube.get("Tenant", NS, "acme"))).toEqual({
      Ready: "False/ApiKeyUnavailable",
      Reconciling: "False/ApiKeyUnavailable",
      Degraded: "True/ApiKeyUnavailable",
    });
    expect(registry.tenants.get("acme")?.apiKeys).toEqual(["attesto_lost"]);
    expect(kube.events.at(-1)).toMatchObject({ type: "Warning", reason: "ApiKeyUnavailable" });
  });

  it("never overwrites a Secret it does not own, and calls no platform API then", async () => {
    kube.putSecret(NS, "acme-api-key", { "api-key": "someone-elses" });
    const built = controller();
    built.onEvent("Tenant", "add", addTenant());
    await settle(built);
    expect(conditionsOf(kube.get("Tenant", NS, "acme")).Ready).toBe("False/SecretConflict");
    expect(registry.callsOf("ApplyTenant")).toHaveLength(0);
    expect(kube.secretValue(NS, "acme-api-key", "api-key")).toBe("someone-elses");
  });

  it("reports an invalid spec without calling the platform (reserved prefix)", async () => {
    const built = controller();
    built.onEvent("Tenant", "add", addTenant({ tenantId: "admin-acme" }));
    await settle(built);
    const stored = kube.get("Tenant", NS, "acme");
    expect(conditionsOf(stored).Ready).toBe("False/InvalidSpec");
    expect(stored?.status?.conditions?.[0]?.message).toContain(
      "spec.tenantId: tenantId must not start with a reserved prefix",
    );
    expect(stored?.status?.observedGeneration).toBe(1);
    expect(registry.calls).toHaveLength(0);
  });

  it("maps a platform rejection to PlatformRejected without retrying", async () => {
    registry.fail("ApplyTenant", Code.InvalidArgument, 1);
    const built = controller();
    built.onEvent("Tenant", "add", addTenant());
    await settle(built);
    expect(conditionsOf(kube.get("Tenant", NS, "acme")).Degraded).toBe("True/PlatformRejected");
    expect(registry.callsOf("ApplyTenant")).toHaveLength(1);
  });

  it("a second Tenant for the same tenantId is Degraded (DuplicateTenantId)", async () => {
    const built = controller();
    built.onEvent("Tenant", "add", addTenant({}, "acme"));
    built.onEvent(
      "Tenant",
      "add",
      kube.add("Tenant", {
        metadata: { name: "acme-copy", namespace: NS },
        spec: { organizationName: "X", tenantId: "acme" },
      }),
    );
    await settle(built);
    expect(conditionsOf(kube.get("Tenant", NS, "acme-copy")).Ready).toBe("False/DuplicateTenantId");
    expect(registry.tenants.get("acme")?.name).toBe("ACME");
  });

  it("reads the webhook signing secret from the referenced Secret, retrying until it exists", async () => {
    const built = controller();
    built.onEvent(
      "Tenant",
      "add",
      addTenant({ webhooks: [{ url: "https://hooks.example/x", events: [] }], webhookSecretRef: { name: "hook" } }),
    );
    await settle(built, 30);
    expect(conditionsOf(kube.get("Tenant", NS, "acme")).Reconciling).toBe("True/Retrying");
    expect(conditionsOf(kube.get("Tenant", NS, "acme")).Degraded).toBe("True/WebhookSecretNotFound");
    kube.putSecret(NS, "hook", { secret: "s3cret-value" });
    await settle(built, 200);
    expect(conditionsOf(kube.get("Tenant", NS, "acme")).Ready).toBe("True/Reconciled");
    expect(registry.tenants.get("acme")?.webhookSecret).toBe("s3cret-value");
    // The secret value appears in no condition and no Event.
    expect(JSON.stringify([kube.events, kube.get("Tenant", NS, "acme")?.status])).not.toContain("s3cret-value");
  });

  it("tolerates a platform without SetWebhooks when no webhook is declared, and not otherwise", async () => {
    registry.setWebhooksImplemented = false;
    const built = controller();
    built.onEvent("Tenant", "add", addTenant());
    built.onEvent("Tenant", "add", addTenant({ webhooks: [{ url: "https://hooks.example/x" }] }, "globex"));
    await settle(built);
    expect(conditionsOf(kube.get("Tenant", NS, "acme")).Ready).toBe("True/Reconciled");
    expect(conditionsOf(kube.get("Tenant", NS, "globex")).Ready).toBe("False/PlatformUnsupported");
  });

  it("finalizes: Revoke deletes (deactivates) the platform tenant; Retain leaves the platform alone", async () => {
    const built = controller();
    built.onEvent("Tenant", "add", addTenant({ webhooks: [{ url: "https://hooks.example/x" }] }));
    built.onEvent("Tenant", "add", addTenant({ deletionPolicy: "Retain" }, "globex"));
    await settle(built);
    const acmeKey = kube.secretValue(NS, "acme-api-key", "api-key");
    const globexKey = kube.secretValue(NS, "globex-api-key", "api-key");
    for (const name of ["acme", "globex"]) {
      const stored = kube.get("Tenant", NS, name)!;
      stored.metadata.deletionTimestamp = NOW.toISOString();
      built.onEvent("Tenant", "update", stored);
    }
    await settle(built);
    expect(registry.callsOf("DeleteTenant").map((call) => call.tenant)).toEqual(["acme"]);
    expect(registry.tenants.get("acme")).toMatchObject({ deactivated: true, apiKeys: [], webhooks: [] });
    expect(
      (await registry.platform({ caller: "verifier" }).tenants.authenticateApiKey({ apiKey: acmeKey })).outcome,
    ).not.toBe(tenantV1.ApiKeyOutcome.VALID);
    expect(registry.tenants.get("globex")?.apiKeys).toEqual([globexKey]);
    expect(registry.tenants.get("globex")?.deactivated).toBeUndefined();
    expect(kube.get("Tenant", NS, "acme")?.metadata.finalizers).toEqual([]);
    expect(kube.get("Tenant", NS, "globex")?.metadata.finalizers).toEqual([]);
    const removal = kube.jsonPatches.find((p) => p.name === "acme" && p.operations.some((o) => o.op === "remove"));
    expect(removal?.operations[0]).toMatchObject({ op: "test", path: "/metadata/resourceVersion" });
    expect(kube.events.map((e) => e.reason)).toEqual(
      expect.arrayContaining(["PlatformTenantDeleted", "PlatformTenantRetained"]),
    );
  });

  it("a Tenant still referenced by an Issuer is not deleted (TenantInUse) until the Issuer is gone", async () => {
    const built = controller();
    built.onEvent("Tenant", "add", addTenant());
    await settle(built);
    built.onEvent("Tenant", "update", kube.get("Tenant", NS, "acme")!);
    const issuer = kube.add("Issuer", {
      metadata: { name: "acme-issuer", namespace: NS },
      spec: { tenantRef: { name: "acme" }, credentialConfigurations: [{ type: "employee-badge", version: "v1" }] },
    });
    built.onEvent("Issuer", "add", issuer);
    await settle(built);
    expect(conditionsOf(kube.get("Issuer", NS, "acme-issuer")).Ready).toBe("True/Applied");

    const tenant = kube.get("Tenant", NS, "acme")!;
    tenant.metadata.deletionTimestamp = NOW.toISOString();
    built.onEvent("Tenant", "update", tenant);
    await settle(built);
    expect(conditionsOf(kube.get("Tenant", NS, "acme"))).toMatchObject({
      Ready: "False/TenantInUse",
      Degraded: "True/TenantInUse",
    });
    expect(kube.get("Tenant", NS, "acme")?.status?.conditions?.[0]?.message).toContain(
      `still referenced by Issuer/${NS}/acme-issuer`,
    );
    expect(registry.callsOf("DeleteTenant")).toHaveLength(0);
    expect(kube.get("Tenant", NS, "acme")?.metadata.finalizers).toEqual([TENANT_FINALIZER]);

    // The Issuer goes: its finalizer deletes its configuration, then the Tenant's cleanup proceeds.
    const stored = kube.get("Issuer", NS, "acme-issuer")!;
    stored.metadata.deletionTimestamp = NOW.toISOString();
    built.onEvent("Issuer", "update", stored);
    await settle(built);
    expect(registry.issuer.configurations.has("acme")).toBe(false);
    expect(kube.get("Issuer", NS, "acme-issuer")?.metadata.finalizers).toEqual([]);
    const gone = kube.get("Issuer", NS, "acme-issuer")!;
    kube.resources.delete(`Issuer/${NS}/acme-issuer`);
    built.onEvent("Issuer", "delete", gone);
    await settle(built);
    expect(registry.callsOf("DeleteTenant")).toHaveLength(1);
    expect(registry.tenants.get("acme")?.deactivated).toBe(true);
    expect(kube.get("Tenant", NS, "acme")?.metadata.finalizers).toEqual([]);
  });

  it("a VerifierPolicy referencing the Tenant blocks its deletion the same way", async () => {
    const built = controller();
    built.onEvent("Tenant", "add", addTenant());
    await settle(built);
    built.onEvent("Tenant", "update", kube.get("Tenant", NS, "acme")!);
    const policy = kube.add("VerifierPolicy", {
      metadata: { name: "p", namespace: NS },
      spec: { tenantRef: { name: "acme" }, acceptedVcts: ["https://example.test/vct/a"] },
    });
    built.onEvent("VerifierPolicy", "add", policy);
    await settle(built);
    const tenant = kube.get("Tenant", NS, "acme")!;
    tenant.metadata.deletionTimestamp = NOW.toISOString();
    built.onEvent("Tenant", "update", tenant);
    await settle(built);
    expect(conditionsOf(kube.get("Tenant", NS, "acme")).Ready).toBe("False/TenantInUse");
    expect(registry.callsOf("DeleteTenant")).toHaveLength(0);

    const stored = kube.get("VerifierPolicy", NS, "p")!;
    stored.metadata.deletionTimestamp = NOW.toISOString();
    built.onEvent("VerifierPolicy", "update", stored);
    await settle(built);
    const gone = kube.get("VerifierPolicy", NS, "p")!;
    kube.resources.delete(`VerifierPolicy/${NS}/p`);
    built.onEvent("VerifierPolicy", "delete", gone);
    await settle(built);
    expect(registry.callsOf("DeleteTenant")).toHaveLength(1);
    expect(kube.get("Tenant", NS, "acme")?.metadata.finalizers).toEqual([]);
  });
});

describe("IssuerReconciler and VerifierPolicyReconciler", () => {
  async function readyTenant(built: Controller, spec: Record<string, unknown> = {}) {
    built.onEvent("Tenant", "add", addTenant(spec));
    await settle(built);
    expect(conditionsOf(kube.get("Tenant", NS, "acme")).Ready).toBe("True/Reconciled");
  }

  it("waits for the Tenant, then validates and applies the configuration to the credential issuer", async () => {
    const built = controller();
    const issuer = kube.add("Issuer", {
      metadata: { name: "acme", namespace: NS },
      spec: { tenantRef: { name: "acme" }, credentialConfigurations: [{ type: "employee-badge", version: "v1" }] },
    });
    built.onEvent("Issuer", "add", issuer);
    await settle(built);
    expect(conditionsOf(kube.get("Issuer", NS, "acme")).Ready).toBe("False/TenantNotFound");
    const tenant = addTenant();
    built.onEvent("Tenant", "add", tenant);
    await settle(built);
    // The Tenant turned Ready: its Issuers are queued again.
    built.onEvent("Tenant", "update", kube.get("Tenant", NS, "acme")!);
    await settle(built);
    const stored = kube.get("Issuer", NS, "acme");
    expect(conditionsOf(stored).Ready).toBe("True/Applied");
    expect(stored?.metadata.finalizers).toEqual([ISSUER_FINALIZER]);
    expect(stored?.status).toMatchObject({
      tenantId: "acme",
      credentialConfigurationIds: ["employee-badge"],
      enforcement: "Enforced",
    });
    expect(registry.issuer.configurations.get("acme")).toMatchObject({
      tenant: "acme",
      issuerName: `${NS}/acme`,
      credentialConfigurations: [{ id: "employee-badge", display: [] }],
      signingMode: issuerConfigurationV1.SigningMode.DID,
      signingKeyId: "",
      defaultOfferTtlSeconds: 3600,
    });
    expect(registry.issuer.callsOf("ApplyIssuerConfiguration").map((call) => call.caller)).toEqual(["operator"]);
    expect(kube.events.map((event) => event.reason)).toContain("IssuerConfigurationApplied");
  });

  it("sends display, signing mode and offer TTL; retries an unavailable issuer; a rejection is Degraded", async () => {
    const built = controller();
    await readyTenant(built);
    registry.signingCertificate = await createTestCertificates("acme", { now: NOW });
    registry.issuer.fail("ApplyIssuerConfiguration", Code.Unavailable, 2);
    const spec = {
      tenantRef: { name: "acme" },
      credentialConfigurations: [
        {
          type: "university-diploma",
          version: "v1",
          display: [
            {
              name: "ACME Diploma",
              locale: "en-US",
              description: "Degree",
              backgroundColor: "#12107C",
              textColor: "#FFFFFF",
              logo: { uri: "https://acme.example/logo.png", altText: "ACME" },
            },
          ],
        },
      ],
      signingMode: "X509",
      offerTtlSeconds: 1800,
    };
    built.onEvent("Issuer", "add", kube.add("Issuer", { metadata: { name: "acme", namespace: NS }, spec }));
    await settle(built, 300);
    expect(conditionsOf(kube.get("Issuer", NS, "acme")).Ready).toBe("True/Applied");
    expect(registry.issuer.callsOf("ApplyIssuerConfiguration")).toHaveLength(3);
    // Both failures on one Event (client-go's aggregation), counted.
    expect(kube.events.filter((event) => event.reason === "PlatformUnavailable").map((event) => event.count)).toEqual([
      2,
    ]);
    expect(registry.issuer.configurations.get("acme")).toMatchObject({
      credentialConfigurations: [
        {
          id: "university-diploma",
          display: [
            {
              name: "ACME Diploma",
              locale: "en-US",
              description: "Degree",
              backgroundColor: "#12107C",
              textColor: "#FFFFFF",
              logoUri: "https://acme.example/logo.png",
              logoAltText: "ACME",
            },
          ],
        },
      ],
      signingMode: issuerConfigurationV1.SigningMode.X509,
      signingKeyId: "key-acme",
      defaultOfferTtlSeconds: 1800,
    });

    registry.issuer.fail("ApplyIssuerConfiguration", Code.InvalidArgument);
    const changed = kube.get("Issuer", NS, "acme")!;
    changed.spec = { ...spec, offerTtlSeconds: 600 };
    changed.metadata.generation = 2;
    built.onEvent("Issuer", "update", changed);
    await settle(built);
    expect(conditionsOf(kube.get("Issuer", NS, "acme"))).toMatchObject({
      Ready: "False/PlatformRejected",
      Reconciling: "False/PlatformRejected",
    });
    expect(registry.issuer.callsOf("ApplyIssuerConfiguration")).toHaveLength(4);
  });

  it("one Issuer per Tenant: a second is Degraded (DuplicateIssuer), and its deletion keeps the first's configuration", async () => {
    const built = controller();
    await readyTenant(built);
    const spec = { tenantRef: { name: "acme" }, credentialConfigurations: [{ type: "employee-badge", version: "v1" }] };
    built.onEvent("Issuer", "add", kube.add("Issuer", { metadata: { name: "first", namespace: NS }, spec }));
    await settle(built);
    built.onEvent("Issuer", "add", kube.add("Issuer", { metadata: { name: "second", namespace: NS }, spec }));
    await settle(built);
    expect(conditionsOf(kube.get("Issuer", NS, "second")).Ready).toBe("False/DuplicateIssuer");
    expect(registry.issuer.configurations.get("acme")?.issuerName).toBe(`${NS}/first`);

    const second = kube.get("Issuer", NS, "second")!;
    second.metadata.deletionTimestamp = NOW.toISOString();
    built.onEvent("Issuer", "update", second);
    await settle(built);
    expect(kube.get("Issuer", NS, "second")?.metadata.finalizers).toEqual([]);
    expect(registry.issuer.configurations.get("acme")?.issuerName).toBe(`${NS}/first`);
    expect(registry.issuer.callsOf("DeleteIssuerConfiguration")).toHaveLength(0);

    const first = kube.get("Issuer", NS, "first")!;
    first.metadata.deletionTimestamp = NOW.toISOString();
    built.onEvent("Issuer", "update", first);
    await settle(built);
    expect(registry.issuer.configurations.has("acme")).toBe(false);
    expect(kube.events.map((event) => event.reason)).toContain("IssuerConfigurationDeleted");
  });

  it("rejects an Issuer whose Tenant lacks the issuer role", async () => {
    const built = controller();
    await readyTenant(built, { roles: { issuer: false, verifier: true } });
    built.onEvent(
      "Issuer",
      "add",
      kube.add("Issuer", {
        metadata: { name: "acme", namespace: NS },
        spec: { tenantRef: { name: "acme" }, credentialConfigurations: [{ type: "employee-badge", version: "v1" }] },
      }),
    );
    await settle(built);
    expect(conditionsOf(kube.get("Issuer", NS, "acme")).Ready).toBe("False/TenantLacksIssuerRole");
  });

  const x509Issuer = (name: string, certificateRef?: string) => ({
    metadata: { name, namespace: NS },
    spec: {
      tenantRef: { name: "acme" },
      credentialConfigurations: [{ type: "university-diploma", version: "v1" }],
      signingMode: "X509",
      ...(certificateRef ? { certificateRef: { name: certificateRef } } : {}),
    },
  });
  const newGeneration = (name: string, spec: Record<string, unknown>) => {
    const changed = kube.get("Issuer", NS, name)!;
    changed.spec = spec;
    changed.metadata.generation = (changed.metadata.generation ?? 1) + 1;
    return changed;
  };
  const leafFingerprint = (der: string) => createHash("sha256").update(Buffer.from(der, "base64")).digest("hex");

  it("imports a certificateRef chain and key into key custody; status names it; the same Secret again changes nothing", async () => {
    const built = controller();
    await readyTenant(built);
    const own = await createTestCertificates("acme", { now: NOW, issuer: testIssuerOf("acme") });
    kube.putSecret(NS, "acme-tls", { "tls.crt": own.leafPem + own.rootPem, "tls.key": own.leafKeyPem });
    built.onEvent("Issuer", "add", kube.add("Issuer", x509Issuer("acme", "acme-tls")));
    await settle(built);

    const imported = registry.importedCertificates.get("acme");
    expect(imported?.x5c).toEqual([own.leafDer]);
    expect(imported?.trustAnchor).toBe(own.rootDer);
    expect(registry.callsOf("ImportSigningCertificate").map((call) => call.caller)).toEqual(["operator"]);
    const stored = kube.get("Issuer", NS, "acme");
    expect(conditionsOf(stored).Ready).toBe("True/Applied");
    expect(stored?.status?.conditions?.find((c) => c.type === "Ready")?.message).toContain(
      "imported from certificateRef into key custody",
    );
    expect(stored?.status).toMatchObject({
      signingKeyId: imported?.keyId,
      certificateFingerprint: leafFingerprint(own.leafDer),
      certificateNotAfter: imported?.notAfter.toISOString(),
      enforcement: "Enforced",
    });
    // The credential issuer is told the imported key (X.509 offers sign with it through custody).
    expect(registry.issuer.configurations.get("acme")?.signingKeyId).toBe(imported?.keyId);
    // No platform-issued certificate was asked for.
    expect(registry.callsOf("GetSigningCertificate")).toHaveLength(0);

    // Reconciled again (a new generation with the same Secret): custody keeps the same key.
    built.onEvent(
      "Issuer",
      "update",
      newGeneration("acme", { ...x509Issuer("acme", "acme-tls").spec, offerTtlSeconds: 600 }),
    );
    await settle(built);
    expect(registry.callsOf("ImportSigningCertificate")).toHaveLength(2);
    expect(registry.importedCertificates.get("acme")?.keyId).toBe(imported?.keyId);
    expect(kube.get("Issuer", NS, "acme")?.status?.signingKeyId).toBe(imported?.keyId);
  });

  it("removing certificateRef clears the import and goes back to the platform-issued certificate", async () => {
    const built = controller();
    await readyTenant(built);
    registry.signingCertificate = await createTestCertificates("platform", { now: NOW });
    const own = await createTestCertificates("acme", { now: NOW, issuer: testIssuerOf("acme") });
    kube.putSecret(NS, "acme-tls", { "tls.crt": own.leafPem, "tls.key": own.leafKeyPem });
    built.onEvent("Issuer", "add", kube.add("Issuer", x509Issuer("acme", "acme-tls")));
    await settle(built);
    expect(registry.importedCertificates.has("acme")).toBe(true);

    built.onEvent("Issuer", "update", newGeneration("acme", x509Issuer("acme").spec));
    await settle(built);
    expect(registry.importedCertificates.has("acme")).toBe(false);
    expect(registry.callsOf("ClearSigningCertificate")).toHaveLength(1);
    expect(kube.get("Issuer", NS, "acme")?.status).toMatchObject({
      signingKeyId: "key-acme",
      certificateFingerprint: leafFingerprint(registry.signingCertificate.leafDer),
    });
    expect(conditionsOf(kube.get("Issuer", NS, "acme")).Ready).toBe("True/Applied");
  });

  it("deleting the Issuer clears its imported certificate before the configuration goes", async () => {
    const built = controller();
    await readyTenant(built);
    const own = await createTestCertificates("acme", { now: NOW, issuer: testIssuerOf("acme") });
    kube.putSecret(NS, "acme-tls", { "tls.crt": own.leafPem + own.rootPem, "tls.key": own.leafKeyPem });
    built.onEvent("Issuer", "add", kube.add("Issuer", x509Issuer("acme", "acme-tls")));
    await settle(built);
    expect(registry.importedCertificates.has("acme")).toBe(true);

    registry.fail("ClearSigningCertificate", Code.Unavailable);
    const issuer = kube.get("Issuer", NS, "acme")!;
    issuer.metadata.deletionTimestamp = NOW.toISOString();
    built.onEvent("Issuer", "update", issuer);
    await settle(built, 300);
    expect(registry.importedCertificates.has("acme")).toBe(false);
    expect(registry.issuer.configurations.has("acme")).toBe(false);
    expect(kube.get("Issuer", NS, "acme")?.metadata.finalizers).toEqual([]);
    // The failed clear was retried (the configuration proving ownership was still there).
    expect(registry.callsOf("ClearSigningCertificate")).toHaveLength(2);
  });

  it("a bad certificateRef Secret is Degraded with the fault named, and nothing is imported", async () => {
    const built = controller();
    await readyTenant(built);
    const own = await createTestCertificates("acme", { now: NOW, issuer: testIssuerOf("acme") });
    const other = await createTestCertificates("other", { now: NOW });
    const expired = await createTestCertificates("old", { now: NOW, expired: true });
    const notCa = await createTestCertificates("notca", { now: NOW, rootIsCa: false, issuer: testIssuerOf("acme") });
    // Another tenant's issuer identifier, and none at all: credentials would not match their iss.
    const otherTenant = await createTestCertificates("globex", { now: NOW, issuer: testIssuerOf("globex") });
    const unnamed = await createTestCertificates("unnamed", { now: NOW });
    const cases: Array<[Record<string, string>, string, string | RegExp]> = [
      [{ "tls.crt": own.leafPem }, "False/CertificateSecretNotFound", "needs tls.crt and tls.key"],
      [
        { "tls.crt": "garbage", "tls.key": own.leafKeyPem },
        "False/InvalidCertificate",
        "is not a PEM certificate chain",
      ],
      [{ "tls.crt": expired.leafPem, "tls.key": expired.leafKeyPem }, "False/CertificateExpired", "expired at"],
      [
        { "tls.crt": own.leafPem, "tls.key": other.leafKeyPem },
        "False/InvalidCertificate",
        "Secret acme-tls: private_key_pem does not match the leaf certificate's public key",
      ],
      [
        { "tls.crt": notCa.leafPem + notCa.rootPem, "tls.key": notCa.leafKeyPem },
        "False/InvalidCertificate",
        "chain[1] is not a CA certificate",
      ],
      [{ "tls.crt": own.leafPem, "tls.key": "not a key" }, "False/InvalidCertificate", "not a PEM private key"],
      [
        { "tls.crt": otherTenant.leafPem, "tls.key": otherTenant.leafKeyPem },
        "False/CertificateNameMismatch",
        `Secret acme-tls: the leaf certificate's subjectAltName must contain the tenant's credential issuer identifier as a URI (URI:${testIssuerOf("acme")}; HAIP verifiers also match DNS:issuer.test); it has url:${testIssuerOf("globex")}, dns:issuer.test`,
      ],
      [
        { "tls.crt": unnamed.leafPem, "tls.key": unnamed.leafKeyPem },
        "False/CertificateNameMismatch",
        /it has no subjectAltName$/,
      ],
    ];
    built.onEvent("Issuer", "add", kube.add("Issuer", x509Issuer("acme", "missing-tls")));
    await settle(built);
    expect(conditionsOf(kube.get("Issuer", NS, "acme")).Ready).toBe("False/CertificateSecretNotFound");
    for (const [index, [data, ready, message]] of cases.entries()) {
      kube.putSecret(NS, `acme-tls-${index}`, data);
      const spec = x509Issuer("acme", `acme-tls-${index}`).spec;
      built.onEvent("Issuer", "update", newGeneration("acme", spec));
      await settle(built);
      const stored = kube.get("Issuer", NS, "acme");
      expect(conditionsOf(stored).Ready).toBe(ready);
      // A missing key is retried (the Secret may be on its way); a bad one waits for a change.
      if (!ready.endsWith("SecretNotFound")) expect(conditionsOf(stored).Degraded).toBe(`True/${ready.slice(6)}`);
      const readyMessage = stored?.status?.conditions?.find((c) => c.type === "Ready")?.message ?? "";
      expect(readyMessage.replace(`acme-tls-${index}`, "acme-tls")).toMatch(message);
      expect(kube.events.map((event) => event.reason)).toContain(ready.slice(6));
    }
    expect(registry.importedCertificates.has("acme")).toBe(false);
    expect(registry.issuer.configurations.has("acme")).toBe(false);
  });

  it("rejects keyRef with signingMode X509 (as the CRD's CEL rule does)", async () => {
    const built = controller();
    await readyTenant(built);
    built.onEvent(
      "Issuer",
      "add",
      kube.add("Issuer", {
        metadata: { name: "acme", namespace: NS },
        spec: {
          tenantRef: { name: "acme" },
          credentialConfigurations: [{ type: "employee-badge", version: "v1" }],
          signingMode: "X509",
          keyRef: { name: "k" },
        },
      }),
    );
    await settle(built);
    const stored = kube.get("Issuer", NS, "acme");
    expect(conditionsOf(stored).Ready).toBe("False/InvalidSpec");
    expect(stored?.status?.conditions?.[0]?.message).toContain("keyRef requires signingMode DID");
  });

  it("applies a VerifierPolicy to the verifier (roots as DER, claim paths split) and reports it Enforced", async () => {
    const built = controller();
    await readyTenant(built);
    const roots = await createTestCertificates("Trusted", { now: NOW });
    const notCa = await createTestCertificates("NotCa", { now: NOW, rootIsCa: false });
    kube.putSecret(NS, "roots", { "ca.crt": roots.rootPem });
    kube.putSecret(NS, "bad-roots", { "ca.crt": notCa.rootPem });
    const spec = {
      tenantRef: { name: "acme" },
      trustedIssuers: { dids: ["did:ledger:abc"], x509RootsSecretRef: { name: "roots" } },
      acceptedVcts: ["https://example.test/vct/employee-badge"],
      requiredClaims: ["given_name", "address.country"],
      verificationMode: "run_all",
      sessionTtlSeconds: 600,
    };
    built.onEvent(
      "VerifierPolicy",
      "add",
      kube.add("VerifierPolicy", { metadata: { name: "good", namespace: NS }, spec }),
    );
    built.onEvent(
      "VerifierPolicy",
      "add",
      kube.add("VerifierPolicy", {
        metadata: { name: "bad", namespace: NS },
        spec: { ...spec, trustedIssuers: { x509RootsSecretRef: { name: "bad-roots" } } },
      }),
    );
    await settle(built);
    const good = kube.get("VerifierPolicy", NS, "good");
    expect(conditionsOf(good)).toEqual({
      Ready: "True/Applied",
      Reconciling: "False/Applied",
      Degraded: "False/Applied",
    });
    expect(good?.metadata.finalizers).toEqual([VERIFIER_POLICY_FINALIZER]);
    const fingerprints = (good?.status as { x509RootFingerprints?: string[] } | undefined)?.x509RootFingerprints ?? [];
    expect(fingerprints).toHaveLength(1);
    const digest = policyDigestOf("acme", zVerifierPolicySpec.parse(spec), fingerprints);
    expect(good?.status).toMatchObject({
      tenantId: "acme",
      trustedDidCount: 1,
      policyDigest: digest,
      enforcement: "Enforced",
    });

    const applied = registry.verifier.policies.get("acme/good");
    expect(applied).toMatchObject({
      tenant: "acme",
      name: "good",
      trustedIssuerDids: ["did:ledger:abc"],
      acceptedVcts: ["https://example.test/vct/employee-badge"],
      requiredClaims: [{ segments: ["given_name"] }, { segments: ["address", "country"] }],
      verificationMode: verifierPolicyV1.VerificationMode.RUN_ALL,
      sessionTtlSeconds: 600,
      digest,
    });
    expect(Buffer.from(applied!.trustedX509RootsDer[0]!).toString("base64")).toBe(roots.rootDer);
    expect(registry.verifier.callsOf("ApplyPolicy").map((call) => call.caller)).toEqual(["operator"]);
    expect(kube.events.map((event) => event.reason)).toContain("PolicyApplied");

    expect(conditionsOf(kube.get("VerifierPolicy", NS, "bad")).Ready).toBe("False/InvalidX509Roots");
    expect(registry.verifier.policies.has("acme/bad")).toBe(false);
  });

  it("retries ApplyPolicy while the verifier is unavailable; a rejection is Degraded without retries", async () => {
    const built = controller();
    await readyTenant(built);
    registry.verifier.fail("ApplyPolicy", Code.Unavailable, 2);
    const spec = { tenantRef: { name: "acme" }, trustedIssuers: { dids: ["did:ledger:abc"] } };
    built.onEvent(
      "VerifierPolicy",
      "add",
      kube.add("VerifierPolicy", { metadata: { name: "p", namespace: NS }, spec }),
    );
    await settle(built, 300);
    expect(conditionsOf(kube.get("VerifierPolicy", NS, "p")).Ready).toBe("True/Applied");
    expect(registry.verifier.callsOf("ApplyPolicy")).toHaveLength(3);
    // Both failures on one Event (client-go's aggregation), counted.
    expect(kube.events.filter((event) => event.reason === "PlatformUnavailable").map((event) => event.count)).toEqual([
      2,
    ]);

    registry.verifier.fail("ApplyPolicy", Code.InvalidArgument);
    built.onEvent(
      "VerifierPolicy",
      "add",
      kube.add("VerifierPolicy", { metadata: { name: "q", namespace: NS }, spec }),
    );
    await settle(built);
    const rejected = kube.get("VerifierPolicy", NS, "q");
    expect(conditionsOf(rejected)).toMatchObject({
      Ready: "False/PlatformRejected",
      Reconciling: "False/PlatformRejected",
    });
    expect(registry.verifier.callsOf("ApplyPolicy").filter((call) => call.name === "q")).toHaveLength(1);
  });

  it("the finalizer deletes the policy from the verifier before it lets the resource go", async () => {
    const built = controller();
    await readyTenant(built);
    const spec = { tenantRef: { name: "acme" }, acceptedVcts: ["https://example.test/vct/employee-badge"] };
    built.onEvent(
      "VerifierPolicy",
      "add",
      kube.add("VerifierPolicy", { metadata: { name: "p", namespace: NS }, spec }),
    );
    await settle(built);
    expect(registry.verifier.policies.has("acme/p")).toBe(true);

    registry.verifier.fail("DeletePolicy", Code.Unavailable);
    const stored = kube.get("VerifierPolicy", NS, "p")!;
    stored.metadata.deletionTimestamp = NOW.toISOString();
    built.onEvent("VerifierPolicy", "update", stored);
    await settle(built, 200);
    expect(registry.verifier.callsOf("DeletePolicy")).toHaveLength(2);
    expect(registry.verifier.policies.has("acme/p")).toBe(false);
    expect(kube.get("VerifierPolicy", NS, "p")?.metadata.finalizers).toEqual([]);
    expect(kube.events.map((event) => event.reason)).toContain("PolicyDeleted");
  });

  it("a policy moved to another tenant is deleted from the old one", async () => {
    const built = controller();
    await readyTenant(built);
    built.onEvent("Tenant", "add", addTenant({}, "globex"));
    await settle(built);
    const policy = kube.add("VerifierPolicy", {
      metadata: { name: "p", namespace: NS },
      spec: { tenantRef: { name: "acme" }, acceptedVcts: ["https://example.test/vct/a"] },
    });
    built.onEvent("VerifierPolicy", "add", policy);
    await settle(built);
    const stored = kube.get("VerifierPolicy", NS, "p")!;
    stored.spec = { tenantRef: { name: "globex" }, acceptedVcts: ["https://example.test/vct/a"] };
    stored.metadata.generation = (stored.metadata.generation ?? 1) + 1;
    built.onEvent("VerifierPolicy", "update", stored);
    await settle(built);
    expect([...registry.verifier.policies.keys()]).toEqual(["globex/p"]);
    expect(kube.get("VerifierPolicy", NS, "p")?.status).toMatchObject({ tenantId: "globex", enforcement: "Enforced" });
  });
});

describe("LeaderElector", () => {
  it("lets one of two candidates lead, renews, and hands over only after the lease expires", async () => {
    let now = new Date("2026-11-22T10:00:00.000Z");
    const clock = () => now;
    const make = (identity: string) =>
      new LeaderElector({
        kube,
        namespace: "ops",
        name: "lease",
        identity,
        leaseDurationSeconds: 15,
        now: clock,
        onStartedLeading() {},
        onStoppedLeading() {},
      });
    const a = make("a");
    const b = make("b");
    expect(await a.tryAcquireOrRenew()).toBe(true);
    expect(await b.tryAcquireOrRenew()).toBe(false);
    now = new Date(now.getTime() + 10_000);
    expect(await a.tryAcquireOrRenew()).toBe(true);
    // b sees the renewed record at 12 s: the lease duration counts from there, on b's clock.
    now = new Date(now.getTime() + 2_000);
    expect(await b.tryAcquireOrRenew()).toBe(false);
    now = new Date(now.getTime() + 14_000);
    expect(await b.tryAcquireOrRenew()).toBe(false);
    now = new Date(now.getTime() + 2_000);
    expect(await b.tryAcquireOrRenew()).toBe(true);
    expect(kube.leases.get("ops/lease")?.spec).toMatchObject({ holderIdentity: "b", leaseTransitions: 1 });
    expect(kube.leases.get("ops/lease")?.spec.renewTime).toBe("2026-11-22T10:00:28.000000Z");
  });

  it("never takes a Lease that is still being renewed, whatever the holder's clock says (skew)", async () => {
    let now = new Date("2026-11-22T10:00:00.000Z");
    const elector = (identity: string, skewMs: number) =>
      new LeaderElector({
        kube,
        namespace: "ops",
        name: "skewed",
        identity,
        leaseDurationSeconds: 15,
        now: () => new Date(now.getTime() + skewMs),
        onStartedLeading() {},
        onStoppedLeading() {},
      });
    // a's node clock is an hour behind: every renewTime it writes looks long expired to b.
    const a = elector("a", -3_600_000);
    const b = elector("b", 0);
    expect(await a.tryAcquireOrRenew()).toBe(true);
    for (let i = 0; i < 5; i++) {
      expect(await b.tryAcquireOrRenew(), `b at ${i * 2}s while a renews`).toBe(false);
      now = new Date(now.getTime() + 2_000);
      expect(await a.tryAcquireOrRenew()).toBe(true);
    }
    expect(kube.leases.get("ops/skewed")?.spec.holderIdentity).toBe("a");
    // a stops renewing: b takes over once it has seen the same record for the lease duration.
    expect(await b.tryAcquireOrRenew()).toBe(false);
    now = new Date(now.getTime() + 15_001);
    expect(await b.tryAcquireOrRenew()).toBe(true);
    expect(kube.leases.get("ops/skewed")?.spec.holderIdentity).toBe("b");
  });

  it("on stop ends the term before it releases the Lease (no new leader while this one still acts)", async () => {
    const order: string[] = [];
    const replaceLease = kube.replaceLease.bind(kube);
    kube.replaceLease = async (lease) => {
      order.push(`lease held by '${lease.spec?.holderIdentity ?? ""}'`);
      return replaceLease(lease);
    };
    const elector = new LeaderElector({
      kube,
      namespace: "ops",
      name: "stopping",
      identity: "a",
      now: testClock,
      onStartedLeading: () => order.push("started"),
      onStoppedLeading: () => order.push("stopped"),
    });
    elector.start();
    const deadline = Date.now() + 5_000;
    while (!elector.isLeader) {
      if (Date.now() > deadline) throw new Error("timed out waiting for the elector to lead");
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await elector.stop();
    expect(order).toEqual(["started", "stopped", "lease held by ''"]);
    expect(kube.leases.get("ops/stopping")?.spec.holderIdentity).toBe("");
  });
});
