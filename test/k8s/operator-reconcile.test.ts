import { createHash, X509Certificate } from "node:crypto";
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
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { InMemoryKube } from "./support/in-memory-kube.js";
import { OperatorPlatform } from "./support/real-platform.js";
import { createTestCertificates } from "./support/test-certificates.js";

/**
 * Reconcile logic with an injected Kubernetes client (in memory) against the real trust registry,
 * credential issuer and verifier (support/real-platform.ts; port offset below), started once for the
 * file. Each test declares its own platform tenant ids (A, G), so that one test's platform state is
 * not another's; Kubernetes state is new in every test.
 */
const NS = "tenants";
/** The one clock of this suite: the operator, the trust registry's key custody and every certificate read it. */
const NOW = new Date("2026-11-22T10:00:00.000Z");
const testClock = () => NOW;
const PORT_OFFSET = 19_860;

let kube: InMemoryKube;
let platform: OperatorPlatform;
const controllers: Controller[] = [];
let run = 0;
/** This test's platform tenant ids: the Tenant resource "acme"'s and "globex"'s. */
let A = "";
let G = "";

function controller(options: { maxAttempts?: number } = {}) {
  const deps = { kube, platform: platform.platform(), cache: kube, now: testClock };
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
  controllers.push(built);
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

/**
 * Settles until `done` holds: retries run on real timers, so on a loaded machine they may take longer
 * than any fixed window. Gives up after `timeoutMs`; the expectations that follow then say what is missing.
 */
async function settleUntil(built: Controller, done: () => boolean, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  await settle(built, 20);
  while (!done() && Date.now() < deadline) await settle(built, 20);
  await settle(built, 20);
}

/** A Tenant resource `name` ("acme" or "globex"), declaring this test's platform tenant id for it. */
function addTenant(spec: Record<string, unknown> = {}, name = "acme") {
  return kube.add("Tenant", {
    metadata: { name, namespace: NS },
    spec: { organizationName: "ACME", tenantId: `${name}-${run}`, ...spec },
  });
}

const conditionsOf = (resource: CustomResource | undefined) =>
  Object.fromEntries((resource?.status?.conditions ?? []).map((c) => [c.type, `${c.status}/${c.reason}`]));

/** The trust registry's TenantService as the operator calls it, outside the recorded edge. */
const tenantService = () => platform.client(tenantV1.TenantService, "trust-registry");

beforeAll(async () => {
  platform = await OperatorPlatform.start({ portOffset: PORT_OFFSET, label: "reconcile", clock: testClock });
}, 120_000);

afterAll(async () => {
  await platform?.close();
});

beforeEach(() => {
  run++;
  A = `acme-${run}`;
  G = `globex-${run}`;
  kube = new InMemoryKube();
  platform.reset();
});

afterEach(() => {
  for (const built of controllers.splice(0)) built.stop();
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
    let gaveUp!: () => void;
    const givenUp = new Promise<void>((resolve) => {
      gaveUp = resolve;
    });
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
        gaveUp();
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
    await givenUp;
    await queue.idle();
    expect(queue.retrying).toBe(0);
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
    // Whatever a running queue would start on the next turns of the event loop, a paused one does not.
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
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
    expect((await platform.tenant(A))?.tenant).toMatchObject({
      tenant: A,
      name: "ACME",
      roles: [tenantV1.Role.ISSUER],
      status: "APPROVED",
    });
    const apiKey = kube.secretValue(NS, "acme-api-key", "api-key");
    expect(await platform.apiKeyValid(apiKey)).toBe(true);
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
    expect(kube.secretValue(NS, "acme-api-key", "tenant-id")).toBe(A);
    // No webhooks declared: the platform generated a signing secret, stored beside the key.
    const webhookSecret = kube.secretValue(NS, "acme-api-key", "webhook-secret");
    expect(webhookSecret).toBeTruthy();
    expect(webhookSecret).toBe((await platform.webhooks(A)).secret);

    // observedGeneration matches: an update event for the same generation costs nothing.
    const writes = kube.statusWrites;
    built.onEvent("Tenant", "update", {
      ...kube.get("Tenant", NS, "acme")!,
      metadata: { ...kube.get("Tenant", NS, "acme")!.metadata, annotations: { a: "b" } },
    });
    await settle(built);
    expect(platform.callsOf("ApplyTenant")).toHaveLength(1);
    expect(kube.statusWrites).toBe(writes);
  });

  /** The platform tenant A, created before the operator saw it: its API key is in no Secret. */
  async function tenantWithLostKey() {
    const lost = (await tenantService().applyTenant({ tenant: A, name: "ACME", isIssuer: true, isVerifier: true }))
      .apiKey;
    expect(await platform.apiKeyValid(lost)).toBe(true);
    return lost;
  }

  it("recovers a lost API key Secret by replacing the key (apiKeyRecovery: Replace)", async () => {
    const lost = await tenantWithLostKey();
    const built = controller();
    built.onEvent("Tenant", "add", addTenant());
    await settle(built);
    const apiKey = kube.secretValue(NS, "acme-api-key", "api-key");
    expect(apiKey).toBeTruthy();
    expect(apiKey).not.toBe(lost);
    // ReplaceApiKey revoked the lost key: only the one in the Secret is accepted.
    expect(await platform.apiKeyValid(apiKey)).toBe(true);
    expect(await platform.apiKeyValid(lost)).toBe(false);
    expect(kube.events.map((e) => e.reason)).toContain("ApiKeyReplaced");
  });

  it("with apiKeyRecovery: None a lost key leaves the tenant Degraded, with an Event", async () => {
    const lost = await tenantWithLostKey();
    const built = controller();
    built.onEvent("Tenant", "add", addTenant({ apiKeyRecovery: "None" }));
    await settle(built);
    expect(conditionsOf(kube.get("Tenant", NS, "acme"))).toEqual({
      Ready: "False/ApiKeyUnavailable",
      Reconciling: "False/ApiKeyUnavailable",
      Degraded: "True/ApiKeyUnavailable",
    });
    expect(await platform.apiKeyValid(lost)).toBe(true);
    expect(platform.callsOf("ReplaceApiKey")).toHaveLength(0);
    expect(kube.events.at(-1)).toMatchObject({ type: "Warning", reason: "ApiKeyUnavailable" });
  });

  it("never overwrites a Secret it does not own, and calls no platform API then", async () => {
    kube.putSecret(NS, "acme-api-key", { "api-key": "someone-elses" });
    const built = controller();
    built.onEvent("Tenant", "add", addTenant());
    await settle(built);
    expect(conditionsOf(kube.get("Tenant", NS, "acme")).Ready).toBe("False/SecretConflict");
    expect(platform.callsOf("ApplyTenant")).toHaveLength(0);
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
    expect(platform.calls).toHaveLength(0);
  });

  it("maps a platform rejection to PlatformRejected without retrying", async () => {
    // The platform keeps contact emails unique: another tenant already has this one.
    const email = `registrar@${A}.example`;
    await tenantService().applyTenant({ tenant: G, name: "Globex", email, isIssuer: true, isVerifier: false });
    const built = controller();
    built.onEvent("Tenant", "add", addTenant({ contact: { email } }));
    await settle(built);
    const stored = kube.get("Tenant", NS, "acme");
    expect(conditionsOf(stored).Degraded).toBe("True/PlatformRejected");
    expect(stored?.status?.conditions?.find((c) => c.type === "Ready")?.message).toContain("ApplyTenant: ");
    expect(platform.callsOf("ApplyTenant")).toHaveLength(1);
    expect(await platform.tenant(A)).toBeUndefined();
  });

  it("maps an injected platform rejection (InvalidArgument) to PlatformRejected without retrying", async () => {
    platform.fail("ApplyTenant", Code.InvalidArgument, 1);
    const built = controller();
    built.onEvent("Tenant", "add", addTenant());
    await settle(built);
    expect(conditionsOf(kube.get("Tenant", NS, "acme")).Degraded).toBe("True/PlatformRejected");
    expect(platform.callsOf("ApplyTenant")).toHaveLength(1);
  });

  it("a second Tenant for the same tenantId is Degraded (DuplicateTenantId)", async () => {
    const built = controller();
    built.onEvent("Tenant", "add", addTenant({}, "acme"));
    built.onEvent(
      "Tenant",
      "add",
      kube.add("Tenant", {
        metadata: { name: "acme-copy", namespace: NS },
        spec: { organizationName: "X", tenantId: A },
      }),
    );
    await settle(built);
    expect(conditionsOf(kube.get("Tenant", NS, "acme-copy")).Ready).toBe("False/DuplicateTenantId");
    expect((await platform.tenant(A))?.tenant?.name).toBe("ACME");
  });

  it("reads the webhook signing secret from the referenced Secret, retrying until it exists", async () => {
    // The trust registry takes 24 to 256 printable characters.
    const WEBHOOK_SECRET = "s3cret-value-of-acme-webhooks";
    const built = controller();
    built.onEvent(
      "Tenant",
      "add",
      addTenant({ webhooks: [{ url: "https://hooks.example/x", events: [] }], webhookSecretRef: { name: "hook" } }),
    );
    await settle(built, 30);
    expect(conditionsOf(kube.get("Tenant", NS, "acme")).Reconciling).toBe("True/Retrying");
    expect(conditionsOf(kube.get("Tenant", NS, "acme")).Degraded).toBe("True/WebhookSecretNotFound");
    kube.putSecret(NS, "hook", { secret: WEBHOOK_SECRET });
    await settleUntil(built, () => conditionsOf(kube.get("Tenant", NS, "acme")).Ready === "True/Reconciled");
    expect(conditionsOf(kube.get("Tenant", NS, "acme")).Ready).toBe("True/Reconciled");
    const webhooks = await platform.webhooks(A);
    expect(webhooks.secret).toBe(WEBHOOK_SECRET);
    expect(webhooks.webhooks.map((w) => w.url)).toEqual(["https://hooks.example/x"]);
    // The secret value appears in no condition and no Event.
    expect(JSON.stringify([kube.events, kube.get("Tenant", NS, "acme")?.status])).not.toContain(WEBHOOK_SECRET);
  });

  it("tolerates a platform without SetWebhooks when no webhook is declared, and not otherwise", async () => {
    // An older platform: SetWebhooks answers Unimplemented (at the operator's edge).
    platform.fail("SetWebhooks", Code.Unimplemented, 10);
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
    expect(platform.callsOf("DeleteTenant").map((call) => call.tenant)).toEqual([A]);
    // Deactivated: unknown to the platform, its key refused, its webhooks gone.
    expect(await platform.tenant(A)).toBeUndefined();
    expect(await platform.apiKeyValid(acmeKey)).toBe(false);
    await expect(platform.webhooks(A)).rejects.toMatchObject({ code: Code.NotFound });
    expect(await platform.apiKeyValid(globexKey)).toBe(true);
    expect(await platform.tenant(G)).toBeDefined();
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
    expect(platform.callsOf("DeleteTenant")).toHaveLength(0);
    expect(await platform.tenant(A)).toBeDefined();
    expect(kube.get("Tenant", NS, "acme")?.metadata.finalizers).toEqual([TENANT_FINALIZER]);

    // The Issuer goes: its finalizer deletes its configuration, then the Tenant's cleanup proceeds.
    const stored = kube.get("Issuer", NS, "acme-issuer")!;
    stored.metadata.deletionTimestamp = NOW.toISOString();
    built.onEvent("Issuer", "update", stored);
    await settle(built);
    expect(await platform.issuerConfiguration(A)).toBeUndefined();
    expect(kube.get("Issuer", NS, "acme-issuer")?.metadata.finalizers).toEqual([]);
    const gone = kube.get("Issuer", NS, "acme-issuer")!;
    kube.resources.delete(`Issuer/${NS}/acme-issuer`);
    built.onEvent("Issuer", "delete", gone);
    await settle(built);
    expect(platform.callsOf("DeleteTenant")).toHaveLength(1);
    expect(await platform.tenant(A)).toBeUndefined();
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
    expect(platform.callsOf("DeleteTenant")).toHaveLength(0);

    const stored = kube.get("VerifierPolicy", NS, "p")!;
    stored.metadata.deletionTimestamp = NOW.toISOString();
    built.onEvent("VerifierPolicy", "update", stored);
    await settle(built);
    const gone = kube.get("VerifierPolicy", NS, "p")!;
    kube.resources.delete(`VerifierPolicy/${NS}/p`);
    built.onEvent("VerifierPolicy", "delete", gone);
    await settle(built);
    expect(platform.callsOf("DeleteTenant")).toHaveLength(1);
    expect(await platform.tenant(A)).toBeUndefined();
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
      tenantId: A,
      credentialConfigurationIds: ["employee-badge"],
      enforcement: "Enforced",
    });
    expect(await platform.issuerConfiguration(A)).toMatchObject({
      tenant: A,
      issuerName: `${NS}/acme`,
      credentialConfigurations: [{ id: "employee-badge", display: [] }],
      signingMode: issuerConfigurationV1.SigningMode.DID,
      signingKeyId: "",
      defaultOfferTtlSeconds: 3600,
    });
    expect(platform.callsOf("ApplyIssuerConfiguration").map((call) => call.tenant)).toEqual([A]);
    expect(kube.events.map((event) => event.reason)).toContain("IssuerConfigurationApplied");
  });

  it("sends display, signing mode and offer TTL; retries an unavailable issuer; a rejection is Degraded", async () => {
    const built = controller();
    await readyTenant(built);
    platform.fail("ApplyIssuerConfiguration", Code.Unavailable, 2);
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
    await settleUntil(built, () => conditionsOf(kube.get("Issuer", NS, "acme")).Ready === "True/Applied");
    expect(conditionsOf(kube.get("Issuer", NS, "acme")).Ready).toBe("True/Applied");
    expect(platform.callsOf("ApplyIssuerConfiguration")).toHaveLength(3);
    // Both failures on one Event (client-go's aggregation), counted.
    expect(kube.events.filter((event) => event.reason === "PlatformUnavailable").map((event) => event.count)).toEqual([
      2,
    ]);
    expect(await platform.issuerConfiguration(A)).toMatchObject({
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
      // The certificate the platform's CA issued the tenant.
      signingKeyId: (await platform.signingCertificate(A)).keyId,
      defaultOfferTtlSeconds: 1800,
    });

    platform.fail("ApplyIssuerConfiguration", Code.InvalidArgument);
    const changed = kube.get("Issuer", NS, "acme")!;
    changed.spec = { ...spec, offerTtlSeconds: 600 };
    changed.metadata.generation = 2;
    built.onEvent("Issuer", "update", changed);
    await settle(built);
    expect(conditionsOf(kube.get("Issuer", NS, "acme"))).toMatchObject({
      Ready: "False/PlatformRejected",
      Reconciling: "False/PlatformRejected",
    });
    expect(platform.callsOf("ApplyIssuerConfiguration")).toHaveLength(4);
    expect((await platform.issuerConfiguration(A))?.defaultOfferTtlSeconds).toBe(1800);
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
    expect((await platform.issuerConfiguration(A))?.issuerName).toBe(`${NS}/first`);

    const second = kube.get("Issuer", NS, "second")!;
    second.metadata.deletionTimestamp = NOW.toISOString();
    built.onEvent("Issuer", "update", second);
    await settle(built);
    expect(kube.get("Issuer", NS, "second")?.metadata.finalizers).toEqual([]);
    expect((await platform.issuerConfiguration(A))?.issuerName).toBe(`${NS}/first`);
    expect(platform.callsOf("DeleteIssuerConfiguration")).toHaveLength(0);

    const first = kube.get("Issuer", NS, "first")!;
    first.metadata.deletionTimestamp = NOW.toISOString();
    built.onEvent("Issuer", "update", first);
    await settle(built);
    expect(await platform.issuerConfiguration(A)).toBeUndefined();
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
  const notAfterOf = (der: string) => new Date(new X509Certificate(Buffer.from(der, "base64")).validTo).toISOString();
  /** Whether key custody signs tenant A's X.509 credentials with `own`'s leaf (imported), not the platform's. */
  const signsWith = async (own: { leafDer: string }) => (await platform.signingCertificate(A)).x5c[0] === own.leafDer;

  it("imports a certificateRef chain and key into key custody; status names it; the same Secret again changes nothing", async () => {
    const built = controller();
    await readyTenant(built);
    const own = await createTestCertificates("acme", { now: NOW, issuer: platform.issuerOf(A) });
    kube.putSecret(NS, "acme-tls", { "tls.crt": own.leafPem + own.rootPem, "tls.key": own.leafKeyPem });
    built.onEvent("Issuer", "add", kube.add("Issuer", x509Issuer("acme", "acme-tls")));
    await settle(built);

    const imported = await platform.signingCertificate(A);
    expect(imported.x5c).toEqual([own.leafDer]);
    expect(imported.trustAnchor).toBe(own.rootDer);
    expect(platform.callsOf("ImportSigningCertificate").map((call) => call.tenant)).toEqual([A]);
    const stored = kube.get("Issuer", NS, "acme");
    expect(conditionsOf(stored).Ready).toBe("True/Applied");
    expect(stored?.status?.conditions?.find((c) => c.type === "Ready")?.message).toContain(
      "imported from certificateRef into key custody",
    );
    expect(stored?.status).toMatchObject({
      signingKeyId: imported.keyId,
      certificateFingerprint: leafFingerprint(own.leafDer),
      certificateNotAfter: notAfterOf(own.leafDer),
      enforcement: "Enforced",
    });
    // The credential issuer is told the imported key (X.509 offers sign with it through custody).
    expect((await platform.issuerConfiguration(A))?.signingKeyId).toBe(imported.keyId);
    // No platform-issued certificate was asked for.
    expect(platform.callsOf("GetSigningCertificate")).toHaveLength(0);

    // Reconciled again (a new generation with the same Secret): custody keeps the same key.
    built.onEvent(
      "Issuer",
      "update",
      newGeneration("acme", { ...x509Issuer("acme", "acme-tls").spec, offerTtlSeconds: 600 }),
    );
    await settle(built);
    expect(platform.callsOf("ImportSigningCertificate")).toHaveLength(2);
    expect((await platform.signingCertificate(A)).keyId).toBe(imported.keyId);
    expect(kube.get("Issuer", NS, "acme")?.status?.signingKeyId).toBe(imported.keyId);
  });

  it("removing certificateRef clears the import and goes back to the platform-issued certificate", async () => {
    const built = controller();
    await readyTenant(built);
    const own = await createTestCertificates("acme", { now: NOW, issuer: platform.issuerOf(A) });
    kube.putSecret(NS, "acme-tls", { "tls.crt": own.leafPem, "tls.key": own.leafKeyPem });
    built.onEvent("Issuer", "add", kube.add("Issuer", x509Issuer("acme", "acme-tls")));
    await settle(built);
    expect(await signsWith(own)).toBe(true);

    built.onEvent("Issuer", "update", newGeneration("acme", x509Issuer("acme").spec));
    await settle(built);
    expect(await signsWith(own)).toBe(false);
    expect(platform.callsOf("ClearSigningCertificate")).toHaveLength(1);
    const issued = await platform.signingCertificate(A);
    expect(kube.get("Issuer", NS, "acme")?.status).toMatchObject({
      signingKeyId: issued.keyId,
      certificateFingerprint: leafFingerprint(issued.x5c[0]!),
      certificateNotAfter: notAfterOf(issued.x5c[0]!),
    });
    expect(conditionsOf(kube.get("Issuer", NS, "acme")).Ready).toBe("True/Applied");
  });

  it("deleting the Issuer clears its imported certificate before the configuration goes", async () => {
    const built = controller();
    await readyTenant(built);
    const own = await createTestCertificates("acme", { now: NOW, issuer: platform.issuerOf(A) });
    kube.putSecret(NS, "acme-tls", { "tls.crt": own.leafPem + own.rootPem, "tls.key": own.leafKeyPem });
    built.onEvent("Issuer", "add", kube.add("Issuer", x509Issuer("acme", "acme-tls")));
    await settle(built);
    expect(await signsWith(own)).toBe(true);

    platform.fail("ClearSigningCertificate", Code.Unavailable);
    const issuer = kube.get("Issuer", NS, "acme")!;
    issuer.metadata.deletionTimestamp = NOW.toISOString();
    built.onEvent("Issuer", "update", issuer);
    await settleUntil(built, () => kube.get("Issuer", NS, "acme")?.metadata.finalizers?.length === 0);
    expect(await platform.issuerConfiguration(A)).toBeUndefined();
    expect(await signsWith(own)).toBe(false);
    expect(kube.get("Issuer", NS, "acme")?.metadata.finalizers).toEqual([]);
    // The failed clear was retried (the configuration proving ownership was still there).
    expect(platform.callsOf("ClearSigningCertificate")).toHaveLength(2);
  });

  it("a bad certificateRef Secret is Degraded with the fault named, and nothing is imported", async () => {
    const built = controller();
    await readyTenant(built);
    const own = await createTestCertificates("acme", { now: NOW, issuer: platform.issuerOf(A) });
    const other = await createTestCertificates("other", { now: NOW });
    const expired = await createTestCertificates("old", { now: NOW, expired: true });
    const notCa = await createTestCertificates("notca", { now: NOW, rootIsCa: false, issuer: platform.issuerOf(A) });
    // Another tenant's issuer identifier, and none at all: credentials would not match their iss.
    const otherTenant = await createTestCertificates("globex", { now: NOW, issuer: platform.issuerOf(G) });
    const host = new URL(platform.issuerOf(A)).hostname;
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
        `Secret acme-tls: the leaf certificate's subjectAltName must contain the tenant's credential issuer identifier as a URI (URI:${platform.issuerOf(A)}; HAIP verifiers also match DNS:${host}); it has url:${platform.issuerOf(G)}, dns:${host}`,
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
    for (const certificates of [own, expired, notCa, otherTenant, unnamed])
      expect(await signsWith(certificates)).toBe(false);
    expect(await platform.issuerConfiguration(A)).toBeUndefined();
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
    const digest = policyDigestOf(A, zVerifierPolicySpec.parse(spec), fingerprints);
    expect(good?.status).toMatchObject({
      tenantId: A,
      trustedDidCount: 1,
      policyDigest: digest,
      enforcement: "Enforced",
    });

    const applied = await platform.policy(A, "good");
    expect(applied).toMatchObject({
      tenant: A,
      name: "good",
      trustedIssuerDids: ["did:ledger:abc"],
      acceptedVcts: ["https://example.test/vct/employee-badge"],
      requiredClaims: [{ segments: ["given_name"] }, { segments: ["address", "country"] }],
      verificationMode: verifierPolicyV1.VerificationMode.RUN_ALL,
      sessionTtlSeconds: 600,
      digest,
    });
    expect(Buffer.from(applied!.trustedX509RootsDer[0]!).toString("base64")).toBe(roots.rootDer);
    expect(platform.callsOf("ApplyPolicy").map((call) => call.tenant)).toEqual([A]);
    expect(kube.events.map((event) => event.reason)).toContain("PolicyApplied");

    expect(conditionsOf(kube.get("VerifierPolicy", NS, "bad")).Ready).toBe("False/InvalidX509Roots");
    expect(await platform.policy(A, "bad")).toBeUndefined();
  });

  it("retries ApplyPolicy while the verifier is unavailable; a rejection is Degraded without retries", async () => {
    const built = controller();
    await readyTenant(built);
    platform.fail("ApplyPolicy", Code.Unavailable, 2);
    const spec = { tenantRef: { name: "acme" }, trustedIssuers: { dids: ["did:ledger:abc"] } };
    built.onEvent(
      "VerifierPolicy",
      "add",
      kube.add("VerifierPolicy", { metadata: { name: "p", namespace: NS }, spec }),
    );
    await settleUntil(built, () => conditionsOf(kube.get("VerifierPolicy", NS, "p")).Ready === "True/Applied");
    expect(conditionsOf(kube.get("VerifierPolicy", NS, "p")).Ready).toBe("True/Applied");
    expect(platform.callsOf("ApplyPolicy")).toHaveLength(3);
    expect(await platform.policy(A, "p")).toMatchObject({
      tenant: A,
      name: "p",
      trustedIssuerDids: ["did:ledger:abc"],
    });
    // Both failures on one Event (client-go's aggregation), counted.
    expect(kube.events.filter((event) => event.reason === "PlatformUnavailable").map((event) => event.count)).toEqual([
      2,
    ]);

    platform.fail("ApplyPolicy", Code.InvalidArgument);
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
    // One call for q (the three before were p's): no retry.
    expect(platform.callsOf("ApplyPolicy")).toHaveLength(4);
    expect(await platform.policy(A, "q")).toBeUndefined();
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
    expect(await platform.policy(A, "p")).toBeDefined();

    platform.fail("DeletePolicy", Code.Unavailable);
    const stored = kube.get("VerifierPolicy", NS, "p")!;
    stored.metadata.deletionTimestamp = NOW.toISOString();
    built.onEvent("VerifierPolicy", "update", stored);
    await settleUntil(built, () => kube.get("VerifierPolicy", NS, "p")?.metadata.finalizers?.length === 0);
    expect(platform.callsOf("DeletePolicy")).toHaveLength(2);
    expect(await platform.policy(A, "p")).toBeUndefined();
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
    expect(await platform.policy(A, "p")).toBeUndefined();
    expect(await platform.policy(G, "p")).toMatchObject({ tenant: G, acceptedVcts: ["https://example.test/vct/a"] });
    expect(platform.callsOf("DeletePolicy").map((call) => call.tenant)).toEqual([A]);
    expect(kube.get("VerifierPolicy", NS, "p")?.status).toMatchObject({ tenantId: G, enforcement: "Enforced" });
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
    await vi.waitFor(() => expect(elector.isLeader, "the elector leads").toBe(true), { timeout: 5_000, interval: 5 });
    await elector.stop();
    expect(order).toEqual(["started", "stopped", "lease held by ''"]);
    expect(kube.leases.get("ops/stopping")?.spec.holderIdentity).toBe("");
  });
});
