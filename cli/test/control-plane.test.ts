import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TenantStatus } from "@attesto/operator/library";
import { keysV1, verifierPolicyV1 } from "@attesto/proto";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { x509 } from "../../services/trust-registry/test/custody/custody-test-kit.js";
import { createTenantChain } from "../../services/trust-registry/test/custody/tenant-chain-kit.js";
import { OperatorPlatform } from "../../test/k8s/support/real-platform.js";
import {
  applyManifests,
  deleteManifests,
  ManifestValidationError,
  type RevealedCredential,
  readManifests,
  readResources,
  statePathOf,
  validateManifests,
} from "../src/index.js";
import { ACME_ISSUER, ACME_POLICY, tenantYaml } from "./support/manifests.js";

/**
 * The control plane drives the real trust registry, credential issuer and verifier (the operator
 * suites' platform, test/k8s/support/real-platform.ts), started once for the file; each test
 * declares its own tenant id (T), so that one test's platform state is not another's.
 */
const PORT_OFFSET = 19_840;
let platform: OperatorPlatform;
let run = 0;
let T = "";
/** ACME University's Tenant, with this test's tenant id. */
let acmeTenant = "";

beforeAll(async () => {
  platform = await OperatorPlatform.start({ portOffset: PORT_OFFSET, label: "cli" });
}, 120_000);

afterAll(async () => {
  await platform?.close();
});

describe("local control plane (the operator's reconcilers over a state file)", () => {
  let dir: string;
  let dataDir: string;
  let revealed: RevealedCredential[];
  const options = () => ({
    dataDir,
    platform: platform.platform(),
    reveal: (credential: RevealedCredential) => revealed.push(credential),
    baseDelayMs: 10,
  });
  const write = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const manifestsOf = (...paths: string[]) => validateManifests(readManifests(paths));

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "attesto-cli-"));
    dataDir = join(dir, ".attesto");
    run++;
    T = `acme-university-${run}`;
    acmeTenant = tenantYaml("acme", T, "ACME University");
    platform.reset();
    revealed = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("creates a tenant, issuer and verifier policy from one multi-document file, revealing the API key once", async () => {
    const file = write("acme.yaml", [acmeTenant, ACME_ISSUER, ACME_POLICY].join("---\n"));
    const outcomes = await applyManifests(manifestsOf(file), options());
    expect(outcomes.map((o) => [o.kind, o.name, o.action, o.ready?.status, o.ready?.reason])).toEqual([
      ["Tenant", "acme", "created", "True", "Reconciled"],
      ["Issuer", "acme", "created", "True", "Applied"],
      ["VerifierPolicy", "acme", "created", "True", "Applied"],
    ]);
    const apiKeys = revealed.filter((r) => r.key === "api-key");
    expect(apiKeys).toEqual([{ tenantId: T, key: "api-key", value: expect.any(String) }]);
    expect(await platform.apiKeyValid(apiKeys[0]?.value)).toBe(true);
    // The generated webhook secret is revealed too, and neither is kept in the state file.
    expect(revealed.map((r) => r.key).sort()).toEqual(["api-key", "webhook-secret"]);
    const stateText = readFileSync(statePathOf(dataDir), "utf8");
    for (const credential of revealed) expect(stateText).not.toContain(credential.value);
    expect(statSync(statePathOf(dataDir)).mode & 0o777).toBe(0o600);

    // The status the operator writes.
    const tenant = readResources(dataDir).find((r) => r.kind === "Tenant")!;
    expect(tenant.status as TenantStatus).toMatchObject({
      observedGeneration: 1,
      tenantStatus: "APPROVED",
      roles: ["issuer", "verifier"],
      apiKeySecretName: "acme-api-key",
      webhookCount: 1,
    });
    expect(tenant.status?.conditions?.map((c) => [c.type, c.status])).toEqual([
      ["Ready", "True"],
      ["Reconciling", "False"],
      ["Degraded", "False"],
    ]);
    expect(await platform.issuerConfiguration(T)).toMatchObject({ tenant: T });
    expect(await platform.policy(T, "acme")).toMatchObject({ trustedIssuerDids: ["did:ledger:acme-university"] });
  });

  it("is idempotent: applying again reports unchanged, keeps the key, and a changed spec is configured", async () => {
    const tenantFile = write("tenant.yaml", acmeTenant);
    const issuerFile = write("issuer.yaml", ACME_ISSUER);
    await applyManifests(manifestsOf(tenantFile, issuerFile), options());
    const apiKey = revealed.find((r) => r.key === "api-key")?.value;
    revealed = [];
    const again = await applyManifests(manifestsOf(tenantFile, issuerFile), options());
    expect(again.map((o) => [o.name, o.action, o.ready?.status])).toEqual([
      ["acme", "unchanged", "True"],
      ["acme", "unchanged", "True"],
    ]);
    expect(revealed).toEqual([]);
    expect(platform.callsOf("ReplaceApiKey")).toEqual([]);
    expect(await platform.apiKeyValid(apiKey)).toBe(true);

    write("tenant.yaml", acmeTenant.replace("ACME University", "ACME University of Science"));
    const changed = await applyManifests(manifestsOf(tenantFile), options());
    expect(changed.map((o) => [o.name, o.action, o.ready?.status])).toEqual([["acme", "configured", "True"]]);
    expect((await platform.tenant(T))?.tenant?.name).toBe("ACME University of Science");
    expect(readResources(dataDir).find((r) => r.kind === "Tenant")!.metadata.generation).toBe(2);
  });

  it("carries Issuer.spec.statusListSize to the credential issuer, and refuses a size outside the rule", async () => {
    const sized = ACME_ISSUER.replace("version: v1", "version: v1\n  statusListSize: 4096");
    await applyManifests(manifestsOf(write("tenant.yaml", acmeTenant), write("issuer.yaml", sized)), options());
    expect((await platform.issuerConfiguration(T))?.statusListSize).toBe(4096);

    // Without it the platform default applies (0 on the wire).
    await applyManifests(manifestsOf(write("issuer.yaml", ACME_ISSUER)), options());
    expect((await platform.issuerConfiguration(T))?.statusListSize).toBe(0);

    const bad = write("bad.yaml", ACME_ISSUER.replace("version: v1", "version: v1\n  statusListSize: 1000"));
    const refused = (() => {
      try {
        manifestsOf(bad);
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(ManifestValidationError);
    expect((refused as ManifestValidationError).problems).toEqual([
      `${bad}: spec.statusListSize: must be a power of two from 1024 to 1048576`,
    ]);
  });

  it("leaves an Issuer waiting, not failed, when its Tenant is missing, and names the reason", async () => {
    const outcomes = await applyManifests(manifestsOf(write("issuer.yaml", ACME_ISSUER)), options());
    expect(outcomes.map((o) => [o.action, o.ready?.status, o.ready?.reason])).toEqual([
      ["created", "False", "TenantNotFound"],
    ]);
  });

  it("refuses the whole set when a document is invalid, naming every bad document with the operator's messages", async () => {
    const file = write(
      "bad.yaml",
      [
        acmeTenant.replace(`tenantId: ${T}`, "tenantId: Admin-Acme"),
        ACME_ISSUER.replace("signingMode", "x").replace("version: v1", "version: v1\n  certificateRef: { name: c }"),
        "apiVersion: attesto.dev/v1\nkind: Tenant\nmetadata: { name: x }\nspec: {}\n",
        "kind: Gadget\n",
      ].join("---\n"),
    );
    const error = (() => {
      try {
        validateManifests(readManifests([file]));
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ManifestValidationError);
    expect((error as ManifestValidationError).problems).toEqual([
      `${file}#1: spec.tenantId: tenantId may contain only letters a-z, digits, hyphens and underscores`,
      `${file}#2: spec: certificateRef requires signingMode X509`,
      `${file}#3: apiVersion must be attesto.dev/v1alpha1 for Tenant`,
      `${file}#4: kind must be one of Tenant, Issuer, VerifierPolicy, Secret`,
    ]);
    expect(existsSync(statePathOf(dataDir))).toBe(false);
  });

  it("deletes in the operator's order: the Tenant goes once nothing refers to it, and is deactivated", async () => {
    const file = write("acme.yaml", [acmeTenant, ACME_ISSUER, ACME_POLICY].join("---\n"));
    await applyManifests(manifestsOf(file), options());
    const outcomes = await deleteManifests(manifestsOf(file), options());
    expect(outcomes.map((o) => [o.kind, o.action]).sort()).toEqual([
      ["Issuer", "deleted"],
      ["Tenant", "deleted"],
      ["VerifierPolicy", "deleted"],
    ]);
    expect(readResources(dataDir)).toEqual([]);
    // Deactivated: unknown to the platform; the issuer configuration and policy are gone.
    expect(await platform.tenant(T)).toBeUndefined();
    expect(await platform.issuerConfiguration(T)).toBeUndefined();
    expect(await platform.policy(T, "acme")).toBeUndefined();

    // Deleting only the Tenant while its Issuer exists leaves it deleting, with the reason.
    await applyManifests(manifestsOf(file), options());
    const blocked = await deleteManifests(manifestsOf(write("tenant.yaml", acmeTenant)), options());
    expect(blocked.map((o) => [o.action, o.ready?.reason])).toEqual([["deleting", "TenantInUse"]]);
  });

  it("a VerifierPolicy's verifierCertificateRef: the chain is imported for x509 sessions; removing it clears the import", async () => {
    const chain = await createTenantChain("ACME RP", { subjectAltNames: [{ type: "dns", value: "localhost" }] });
    const pem = (der: Uint8Array) => new x509.X509Certificate(der).toString("pem");
    const secret = `apiVersion: v1
kind: Secret
metadata: { name: acme-verifier-tls }
type: kubernetes.io/tls
stringData:
  tls.crt: ${JSON.stringify(pem(chain.leaf) + pem(chain.intermediate) + pem(chain.root))}
  tls.key: ${JSON.stringify(chain.leafKeyPem)}
`;
    const policy = ACME_POLICY.replace(
      "requiredClaims:",
      "verifierCertificateRef: { name: acme-verifier-tls }\n  requiredClaims:",
    );
    const outcomes = await applyManifests(
      manifestsOf(write("acme.yaml", [acmeTenant, secret, policy].join("---\n"))),
      options(),
    );
    expect(outcomes.map((o) => [o.kind, o.action, o.ready?.status])).toEqual([
      ["Tenant", "created", "True"],
      ["Secret", "created", undefined],
      ["VerifierPolicy", "created", "True"],
    ]);
    const statusOf = () => readResources(dataDir).find((r) => r.kind === "VerifierPolicy")?.status ?? {};
    expect(statusOf()).toMatchObject({
      verifierCertificateFingerprint: createHash("sha256").update(chain.leaf).digest("hex"),
    });
    expect(await platform.policy(T, "acme")).toMatchObject({
      verifierCertificate: verifierPolicyV1.VerifierCertificate.IMPORTED,
    });
    const custody = platform.client(keysV1.KeyCustodyService, "trust-registry", "verifier");
    const imported = { tenant: T, source: keysV1.VerifierCertificateSource.IMPORTED, host: "localhost" };
    expect((await custody.getVerifierCertificate(imported)).x5c[0]).toBe(Buffer.from(chain.leaf).toString("base64"));

    await applyManifests(manifestsOf(write("acme.yaml", [acmeTenant, secret, ACME_POLICY].join("---\n"))), options());
    expect(statusOf()).not.toHaveProperty("verifierCertificateFingerprint");
    expect(await platform.policy(T, "acme")).toMatchObject({
      verifierCertificate: verifierPolicyV1.VerifierCertificate.UNSPECIFIED,
    });
    await expect(custody.getVerifierCertificate(imported)).rejects.toThrow(/no imported verifier certificate/);
  });

  it("applies Secrets the resources reference (webhookSecretRef), without revealing a generated secret", async () => {
    const secret = `apiVersion: v1
kind: Secret
metadata: { name: acme-webhook }
stringData: { secret: a-long-enough-webhook-signing-secret-0123 }
`;
    const tenant = acmeTenant.replace("spec:\n", "spec:\n  webhookSecretRef: { name: acme-webhook }\n");
    const outcomes = await applyManifests(manifestsOf(write("t.yaml", `${secret}---\n${tenant}`)), options());
    expect(outcomes.map((o) => [o.kind, o.action, o.ready?.status])).toEqual([
      ["Secret", "created", undefined],
      ["Tenant", "created", "True"],
    ]);
    expect((await platform.webhooks(T)).secret).toBe("a-long-enough-webhook-signing-secret-0123");
    expect(revealed.map((r) => r.key)).toEqual(["api-key"]);
  });
});
