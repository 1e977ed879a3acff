import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { getHelm, HelmUnavailableError } from "../../hack/helm/get-helm.js";
import { crdFiles, sourceDir } from "../../hack/helm/sync-crds.js";
import { type RenderedObject, validateObject } from "./support/validate-model.js";

/**
 * The Helm chart rendered for several values scenarios (charts/attesto/ci/*.yaml) with a real helm
 * (from an npm package, see hack/helm/get-helm.ts), every object validated against the Kubernetes
 * schemas, and the properties that matter asserted on the rendered output. Outside CI the suite is
 * skipped, saying why, when helm cannot be fetched (offline); with CI=true that fails instead.
 */
const root = fileURLToPath(new URL("../../", import.meta.url));
const chartDir = join(root, "charts", "attesto");
const SERVICES = [
  "auth-server",
  "credential-issuer",
  "verifier",
  "holder",
  "trust-registry",
  "schema-registry",
  "scheduler",
  "ledger",
];

let helm: string | undefined;
let unavailable: string | undefined;
try {
  helm = getHelm();
} catch (error) {
  // In CI (CI=true) a missing tool fails the suite: a skip there would hide a regression.
  if (!(error instanceof HelmUnavailableError) || process.env.CI) throw error;
  unavailable = error.message;
  console.warn(`chart tests skipped: helm could not be obtained from npm (${unavailable})`);
}

function runHelm(args: string[]): { ok: true; stdout: string } | { ok: false; stderr: string } {
  try {
    return { ok: true, stdout: execFileSync(helm!, args, { cwd: chartDir, encoding: "utf8", stdio: "pipe" }) };
  } catch (error) {
    const failure = error as { stderr?: string; stdout?: string };
    return { ok: false, stderr: `${failure.stderr ?? ""}${failure.stdout ?? ""}` };
  }
}

function render(values: string[], sets: string[] = []): RenderedObject[] {
  const args = ["template", "attesto", ".", "--namespace", "attesto", "--include-crds"];
  for (const file of values) args.push("-f", file);
  for (const set of sets) args.push("--set", set);
  const result = runHelm(args);
  if (!result.ok) throw new Error(result.stderr);
  return parseAllDocuments(result.stdout)
    .map((doc) => doc.toJS() as RenderedObject | null)
    .filter((object): object is RenderedObject => object !== null);
}

function renderError(values: string[], sets: string[]): string {
  const args = ["template", "attesto", ".", ...values.flatMap((f) => ["-f", f]), ...sets.flatMap((s) => ["--set", s])];
  const result = runHelm(args);
  if (result.ok) throw new Error(`rendered although it should fail: ${sets.join(" ")}`);
  return result.stderr;
}

const byKind = (objects: RenderedObject[], kind: string) => objects.filter((o) => o.kind === kind);
const named = (objects: RenderedObject[], kind: string, name: string) =>
  objects.find((o) => o.kind === kind && o.metadata.name === name);

interface Container {
  name: string;
  command: string[];
  env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>;
  ports: Array<{ name: string; containerPort: number }>;
  securityContext: Record<string, unknown>;
  resources: { requests?: object; limits?: object };
  readinessProbe?: { httpGet: { path: string; port: string } };
  livenessProbe?: { httpGet: { path: string; port: string } };
}
const podSpec = (deployment: RenderedObject) =>
  (deployment.spec as { template: { spec: { containers: Container[]; securityContext: Record<string, unknown> } } })
    .template.spec;
const envOf = (container: Container) =>
  Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value ?? e.valueFrom?.secretKeyRef]));

const SCENARIOS = [
  "ci/minimal-values.yaml",
  "ci/production-values.yaml",
  "ci/operator-namespaced-values.yaml",
  "ci/inline-secrets-values.yaml",
];

describe.skipIf(!helm)("Helm chart charts/attesto", () => {
  const rendered = new Map<string, RenderedObject[]>();
  beforeAll(() => {
    for (const scenario of SCENARIOS) rendered.set(scenario, render([scenario]));
  });

  it.each(SCENARIOS)("helm lint --strict passes with %s", (scenario) => {
    const result = runHelm(["lint", ".", "--strict", "-f", scenario]);
    expect(result.ok ? "" : result.stderr).toBe("");
  });

  it.each(SCENARIOS)("every object rendered with %s validates against the Kubernetes schemas", async (scenario) => {
    const objects = rendered.get(scenario)!;
    expect(objects.length).toBeGreaterThan(10);
    for (const object of objects) await validateObject(object);
  });

  it("ships the CRDs from crds/ unchanged", () => {
    const crds = byKind(rendered.get(SCENARIOS[0]!)!, "CustomResourceDefinition");
    const expected = crdFiles().map((file) =>
      parseAllDocuments(readFileSync(join(sourceDir, file), "utf8"))[0]!.toJS(),
    );
    expect(crds).toEqual(expect.arrayContaining(expected));
    expect(crds).toHaveLength(3);
  });

  it("runs every service as a hardened Deployment with /ready and /health probes and resources", () => {
    const objects = rendered.get("ci/production-values.yaml")!;
    const minimal = rendered.get("ci/minimal-values.yaml")!;
    expect(
      byKind(minimal, "Deployment")
        .map((d) => d.metadata.name)
        .sort(),
    ).toEqual(SERVICES.map((s) => `attesto-${s}`).sort());
    for (const deployment of byKind(objects, "Deployment")) {
      const spec = podSpec(deployment);
      expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } });
      for (const container of spec.containers) {
        expect(container.securityContext).toMatchObject({
          runAsNonRoot: true,
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ["ALL"] },
          seccompProfile: { type: "RuntimeDefault" },
        });
        expect(container.resources.requests).toBeDefined();
        expect(container.resources.limits).toBeDefined();
        if (container.name === "operator") {
          expect(container.command).toEqual(["node", "operator/src/main.js"]);
          expect(container.readinessProbe?.httpGet.path).toBe("/readyz");
          expect(container.livenessProbe?.httpGet.path).toBe("/healthz");
        } else {
          expect(container.command).toEqual(["node", `services/${container.name}/src/main.js`]);
          expect(container.readinessProbe?.httpGet).toEqual({ path: "/ready", port: "http" });
          expect(container.livenessProbe?.httpGet).toEqual({ path: "/health", port: "http" });
        }
      }
    }
  });

  it("wires configuration: secrets by reference, internal URLs, OTLP endpoint", () => {
    const objects = rendered.get("ci/production-values.yaml")!;
    const issuer = envOf(podSpec(named(objects, "Deployment", "attesto-credential-issuer")!).containers[0]!);
    expect(issuer).toMatchObject({
      PORT: "8082",
      INTERNAL_PORT: "9082",
      PUBLIC_URL: "https://issuer.attesto.example",
      AUTH_SERVER_URL: "https://auth.attesto.example",
      AUTH_SERVER_INTERNAL_URL: "http://attesto-auth-server:9081",
      TRUST_REGISTRY_INTERNAL_URL: "http://attesto-trust-registry:9085",
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://otel-collector.observability.svc:4318/v1/traces",
      DATABASE_URL: { name: "attesto-database", key: "DATABASE_URL" },
      SERVICE_IDENTITY_KEY: { name: "attesto-platform-secrets", key: "CREDENTIAL_ISSUER_SERVICE_IDENTITY_KEY" },
      SERVICE_IDENTITY_PUBLIC_KEYS: { name: "attesto-platform-secrets", key: "SERVICE_IDENTITY_PUBLIC_KEYS" },
      KEY_ENCRYPTION_KEYS: { name: "attesto-platform-secrets", key: "KEY_ENCRYPTION_KEYS" },
      CREDENTIAL_TTL_SECONDS: "86400",
    });
    const registry = envOf(podSpec(named(objects, "Deployment", "attesto-trust-registry")!).containers[0]!);
    expect(registry.ISSUING_CA_CERT_PEM).toEqual({ name: "attesto-issuing-ca", key: "tls.crt" });
    // Existing secrets: the chart creates none of its own.
    expect(byKind(objects, "Secret")).toEqual([]);
    // Inline values: one platform Secret and one database Secret, nothing secret in a Deployment.
    for (const scenario of ["ci/minimal-values.yaml", "ci/inline-secrets-values.yaml"]) {
      const inline = rendered.get(scenario)!;
      expect(
        byKind(inline, "Secret")
          .map((s) => s.metadata.name)
          .sort(),
      ).toEqual(["attesto-database", "attesto-secrets"]);
      const deployments = JSON.stringify(byKind(inline, "Deployment"));
      expect(deployments).not.toContain("ci-identity-");
      expect(deployments).not.toContain("postgres://");
    }
    const inlineSecret = named(rendered.get("ci/inline-secrets-values.yaml")!, "Secret", "attesto-secrets")!;
    expect(
      Buffer.from(
        (inlineSecret as unknown as { data: Record<string, string> }).data.NONCE_SECRET!,
        "base64",
      ).toString(),
    ).toBe("ci-nonce-secret-0123456789abcdef0123");
    // Given identity keys are kept as given, and the public key set is made from them.
    const data = (inlineSecret as unknown as { data: Record<string, string> }).data;
    const decoded = (key: string) => Buffer.from(data[key]!, "base64").toString();
    expect(JSON.parse(decoded("OPERATOR_SERVICE_IDENTITY_KEY")).d).toBe("ci-identity-operator");
    expect(JSON.parse(decoded("SERVICE_IDENTITY_PUBLIC_KEYS")).keys).toContainEqual({
      kty: "OKP",
      crv: "Ed25519",
      kid: "operator",
      x: "ci-x-operator",
    });
  });

  it("gives wallets https URLs on public host names, and the issuer the auth server's keys in-cluster", () => {
    const minimal = rendered.get("ci/minimal-values.yaml")!;
    const env = (name: string) => envOf(podSpec(named(minimal, "Deployment", `attesto-${name}`)!).containers[0]!);
    expect(env("credential-issuer")).toMatchObject({
      PUBLIC_URL: "https://issuer.attesto.example.com",
      AUTH_SERVER_URL: "https://auth.attesto.example.com",
      TRUST_REGISTRY_URL: "https://registry.attesto.example.com",
      SCHEMA_REGISTRY_URL: "https://schemas.attesto.example.com",
      AUTH_SERVER_JWKS_URL: "http://attesto-auth-server:8081/.well-known/jwks.json",
    });
    expect(env("schema-registry").PUBLIC_URL).toBe("https://schemas.attesto.example.com");
    expect(env("verifier").PUBLIC_URL).toBe("https://verifier.attesto.example.com");
    expect(env("holder").PUBLIC_URL).toBe("https://wallet.attesto.example.com");
    expect(env("trust-registry")).toMatchObject({
      PUBLIC_URL: "https://registry.attesto.example.com",
      CREDENTIAL_ISSUER_URL: "https://issuer.attesto.example.com",
    });
    const ingress = named(minimal, "Ingress", "attesto")!;
    expect((ingress.spec as { rules: Array<{ host: string }> }).rules.map((r) => r.host).sort()).toEqual(
      ["auth", "issuer", "registry", "schemas", "verifier", "wallet"].map((h) => `${h}.attesto.example.com`),
    );
    // A service run outside the release keeps the URL it was given.
    const namespaced = rendered.get("ci/operator-namespaced-values.yaml")!;
    expect(envOf(podSpec(named(namespaced, "Deployment", "attesto-credential-issuer")!).containers[0]!)).toMatchObject({
      TRUST_REGISTRY_URL: "https://registry.platform.example",
    });
  });

  it("trusts no published key and admits tenants only with approval by default", () => {
    const objects = rendered.get("ci/production-values.yaml")!;
    const auth = envOf(podSpec(named(objects, "Deployment", "attesto-auth-server")!).containers[0]!);
    expect(auth).toMatchObject({
      CLIENT_ATTESTATION_REQUIRED_AUTH_CODE: "true",
      CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER: "false",
    });
    expect(JSON.parse(auth.CLIENT_ATTESTATION_TRUSTED_KEYS as string).keys[0].kid).toBe("ci-wallet-provider");
    const registry = envOf(podSpec(named(objects, "Deployment", "attesto-trust-registry")!).containers[0]!);
    expect(registry.TENANT_ADMISSION).toBe("approval");
    // Nothing configured: still no demo provider, and no trusted key at all.
    const bare = render(["ci/minimal-values.yaml"], ["clientAttestation.trustedKeys="]);
    const bareAuth = envOf(podSpec(named(bare, "Deployment", "attesto-auth-server")!).containers[0]!);
    expect(bareAuth.CLIENT_ATTESTATION_TRUSTED_KEYS).toBeUndefined();
    expect(bareAuth.CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER).toBe("false");
  });

  it("keeps internal ports internal: NetworkPolicies, Services and the Ingress", () => {
    const objects = rendered.get("ci/production-values.yaml")!;
    const policies = byKind(objects, "NetworkPolicy");
    expect(policies).toHaveLength(8);
    for (const policy of policies.filter((p) => !p.metadata.name.endsWith("operator"))) {
      const rules = (policy.spec as { ingress: Array<{ ports: Array<{ port: string }>; from?: object[] }> }).ingress;
      const internal = rules.find((r) => r.ports[0]?.port === "internal");
      expect(internal?.from).toEqual([
        {
          podSelector: {
            matchLabels: { "app.kubernetes.io/name": "attesto", "app.kubernetes.io/instance": "attesto" },
          },
        },
        { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "monitoring" } } },
      ]);
      const publicRule = rules.find((r) => r.ports[0]?.port === "http");
      expect(publicRule?.from).toEqual([
        { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "ingress-nginx" } } },
      ]);
    }
    const services = byKind(objects, "Service").filter((s) => !s.metadata.name.endsWith("operator"));
    for (const service of services) {
      const ports = (service.spec as { ports: Array<{ name: string; port: number }> }).ports;
      expect(ports.map((p) => p.name)).toEqual(["http", "internal"]);
      expect(ports[1]!.port).toBeGreaterThanOrEqual(9081);
      expect(ports[1]!.port).toBeLessThanOrEqual(9088);
    }
    const ingress = named(objects, "Ingress", "attesto")!;
    const rules = (
      ingress.spec as {
        rules: Array<{ host: string; http: { paths: Array<{ backend: { service: { port: { name: string } } } }> } }>;
      }
    ).rules;
    expect(rules.map((r) => r.host).sort()).toEqual([
      "auth.attesto.example",
      "issuer.attesto.example",
      "registry.attesto.example",
      "schemas.attesto.example",
      "verifier.attesto.example",
    ]);
    for (const rule of rules) for (const path of rule.http.paths) expect(path.backend.service.port.name).toBe("http");
  });

  it("scales: HPAs replace replicas, PDBs everywhere but where disabled", () => {
    const objects = rendered.get("ci/production-values.yaml")!;
    const hpas = byKind(objects, "HorizontalPodAutoscaler")
      .map((h) => h.metadata.name)
      .sort();
    // Holder is disabled, the ledger opts out.
    expect(hpas).toEqual(
      SERVICES.filter((s) => s !== "holder" && s !== "ledger")
        .map((s) => `attesto-${s}`)
        .sort(),
    );
    expect((named(objects, "Deployment", "attesto-verifier")!.spec as { replicas?: number }).replicas).toBeUndefined();
    expect((named(objects, "Deployment", "attesto-ledger")!.spec as { replicas?: number }).replicas).toBe(2);
    expect(byKind(objects, "PodDisruptionBudget")).toHaveLength(8);
    expect(byKind(rendered.get("ci/minimal-values.yaml")!, "PodDisruptionBudget")).toHaveLength(0);
  });

  it("monitors: a ServiceMonitor on the internal ports, and the Grafana dashboard in a ConfigMap", () => {
    const objects = rendered.get("ci/production-values.yaml")!;
    const monitor = byKind(objects, "ServiceMonitor")[0]!;
    expect(monitor.metadata.labels?.release).toBe("kube-prometheus-stack");
    expect((monitor.spec as { endpoints: Array<{ port: string; path: string }> }).endpoints).toEqual([
      expect.objectContaining({ port: "internal", path: "/metrics" }),
      expect.objectContaining({ port: "operator-http", path: "/metrics" }),
    ]);
    expect(byKind(rendered.get("ci/minimal-values.yaml")!, "ServiceMonitor")).toHaveLength(0);

    // Alerts (opt-in), each with a runbook note; test/telemetry/metrics-scrape.test.ts checks their metrics.
    const rule = byKind(objects, "PrometheusRule")[0]!;
    expect(rule.metadata.labels?.release).toBe("kube-prometheus-stack");
    const alerts = (
      rule.spec as {
        groups: Array<{ rules: Array<{ alert: string; expr: string; annotations: { runbook: string } }> }>;
      }
    ).groups.flatMap((g) => g.rules);
    expect(alerts.map((a) => a.alert)).toEqual([
      "AttestoHighErrorRatio",
      "AttestoHighLatencyP99",
      "AttestoWebhookDeadLetters",
      "AttestoNotarizationBacklogStuck",
      "AttestoAnchoringBehind",
      "AttestoDatabasePoolSaturated",
      "AttestoOperatorReconcileErrors",
    ]);
    for (const alert of alerts) {
      expect(alert.annotations.runbook.length, alert.alert).toBeGreaterThan(100);
      expect(alert.expr, alert.alert).toContain('namespace="attesto"');
    }
    expect(byKind(rendered.get("ci/minimal-values.yaml")!, "PrometheusRule")).toHaveLength(0);

    const dashboardMap = byKind(objects, "ConfigMap").find((c) => c.metadata.name === "attesto-dashboard")!;
    expect(dashboardMap.metadata.labels?.grafana_dashboard).toBe("1");
    // The ConfigMap ships the dashboard file as it is; test/telemetry/metrics-scrape.test.ts checks
    // every metric, label and value it queries against what a running platform exports.
    const shipped = JSON.parse((dashboardMap.data as Record<string, string>)["attesto-overview.json"]!);
    const source = JSON.parse(readFileSync(join(chartDir, "dashboards", "attesto-overview.json"), "utf8"));
    expect(shipped).toEqual(source);
  });

  it("anchors on an EVM chain when asked: key and RPC URL from the Secret, never a value; embedded by default", () => {
    const scheduler = (file: string) =>
      envOf(podSpec(named(rendered.get(file)!, "Deployment", "attesto-scheduler")!).containers[0]!);
    expect(scheduler("ci/production-values.yaml")).toMatchObject({
      LEDGER_BACKEND: "evm",
      EVM_SIGNER_KEY: { name: "attesto-anchoring", key: "EVM_SIGNER_KEY" },
      EVM_RPC_URL: { name: "attesto-anchoring", key: "EVM_RPC_URL" },
      EVM_CHAIN_ID: "8453",
      EVM_CONFIRMATIONS: "6",
      EVM_GAS_LIMIT: "60000",
      EVM_MAX_FEE_PER_GAS_WEI: "50000000000",
    });
    const minimal = scheduler("ci/minimal-values.yaml");
    expect(minimal.LEDGER_BACKEND).toBe("embedded");
    expect(Object.keys(minimal).filter((name) => name.startsWith("EVM_"))).toEqual([]);
    expect(renderError(["ci/minimal-values.yaml"], ["anchoring.backend=evm", "anchoring.evm.chainId=1"])).toContain(
      "anchoring: backend evm needs anchoring.evm.existingSecret",
    );
    expect(
      renderError(["ci/minimal-values.yaml"], ["anchoring.backend=evm", "anchoring.evm.existingSecret=s"]),
    ).toContain("anchoring: backend evm needs anchoring.evm.chainId");
  });

  it("deploys the operator with RBAC for its kinds, Secrets, Events and its Lease", () => {
    const production = rendered.get("ci/production-values.yaml")!;
    const operator = named(production, "Deployment", "attesto-operator")!;
    expect((operator.spec as { replicas: number }).replicas).toBe(2);
    const env = envOf(podSpec(operator).containers[0]!);
    expect(env).toMatchObject({
      TRUST_REGISTRY_INTERNAL_URL: "http://attesto-trust-registry:9085",
      VERIFIER_INTERNAL_URL: "http://attesto-verifier:9083",
      CREDENTIAL_ISSUER_INTERNAL_URL: "http://attesto-credential-issuer:9082",
      LEADER_ELECTION: "true",
    });
    const clusterRole = byKind(production, "ClusterRole")[0]!;
    const rules = clusterRole.rules as Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }>;
    expect(rules).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ resources: ["tenants/status", "issuers/status", "verifierpolicies/status"] }),
        expect.objectContaining({ resources: ["secrets"], verbs: ["get", "create", "patch"] }),
      ]),
    );
    const lease = byKind(production, "Role").find((r) => r.metadata.name.endsWith("leader-election"))!;
    expect(lease.rules).toEqual([
      { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["get", "create", "update"] },
    ]);

    const namespaced = rendered.get("ci/operator-namespaced-values.yaml")!;
    expect(byKind(namespaced, "ClusterRole")).toHaveLength(0);
    expect(byKind(namespaced, "Role").map((r) => r.metadata.namespace)).toContain("attesto-tenants");
    expect(envOf(podSpec(named(namespaced, "Deployment", "attesto-operator")!).containers[0]!)).toMatchObject({
      WATCH_NAMESPACE: "attesto-tenants",
      TRUST_REGISTRY_INTERNAL_URL: "http://trust-registry.platform.svc:9085",
    });
    expect(named(namespaced, "Deployment", "attesto-trust-registry")).toBeUndefined();
  });

  describe("refuses impossible combinations", () => {
    const minimal = ["ci/minimal-values.yaml"];
    it.each([
      [[], ["database.url="], "set database.url (postgres://...) or database.existingSecret"],
      [minimal, ["database.existingSecret=db"], "set only one of database.url and database.existingSecret"],
      [
        minimal,
        ["secrets.generate=false"],
        "every one of: secrets.accessTokenSigningKey, secrets.dpopNonceSecret, secrets.holderTokenSecret",
      ],
      [["ci/inline-secrets-values.yaml"], ["secrets.nonceSecret="], "or every one of: secrets.nonceSecret"],
      [
        ["ci/inline-secrets-values.yaml"],
        ["secrets.serviceIdentityKeys.holder="],
        "or every one of: secrets.serviceIdentityKeys.holder",
      ],
      [minimal, ["ingress.domain="], "set ingress.domain, or give at least one enabled service an ingress host"],
      [
        minimal,
        ["ingress.enabled=false"],
        "cannot use services.authServer: http://attesto-auth-server:8081 is not https; services.credentialIssuer",
      ],
      [
        minimal,
        ["services.schemaRegistry.publicUrl=http://schemas.attesto.example.com"],
        "cannot use services.schemaRegistry: http://schemas.attesto.example.com is not https.",
      ],
      [
        minimal,
        ["services.holder.ingress.host=attesto-holder.attesto.svc"],
        "services.holder: https://attesto-holder.attesto.svc names an in-cluster or local host",
      ],
      [
        minimal,
        ["services.verifier.publicUrl=https://verifier"],
        "services.verifier: https://verifier names an in-cluster or local host",
      ],
      [
        ["ci/operator-namespaced-values.yaml"],
        ["services.trustRegistry.publicUrl="],
        "services.trustRegistry: http://attesto-trust-registry:8085 is not https",
      ],
      [minimal, ["serviceMonitor.enabled=true", "networkPolicy.enabled=true"], "set networkPolicy.metricsFrom"],
      [minimal, ["serviceDefaults.podDisruptionBudget.enabled=true"], "would block every node drain"],
      [
        minimal,
        [
          "serviceDefaults.autoscaling.enabled=true",
          "serviceDefaults.autoscaling.minReplicas=5",
          "serviceDefaults.autoscaling.maxReplicas=2",
        ],
        "minReplicas (5) is greater than maxReplicas (2)",
      ],
      [
        minimal,
        ["operator.enabled=true", "operator.leaderElection.enabled=false"],
        "more than one replica needs operator.leaderElection.enabled",
      ],
      [
        minimal,
        [
          "operator.enabled=true",
          "services.trustRegistry.enabled=false",
          "services.trustRegistry.publicUrl=https://registry.example.com",
        ],
        "set operator.trustRegistryUrl",
      ],
      [minimal, ["issuingCa.certPem=-----BEGIN CERTIFICATE-----x"], "certPem needs keyPem"],
    ])("%#: %j %j", (values, sets, message) => {
      expect(renderError(values as string[], sets as string[])).toContain(message);
    });

    it("rejects unknown and malformed values through values.schema.json", () => {
      expect(renderError(minimal, ["replicaCount=3"])).toMatch(/additional properties 'replicaCount' not allowed/i);
      expect(renderError(minimal, ["services.authServer.replicas=0"])).toMatch(/replicas/);
      expect(renderError(minimal, ["secrets.serviceIdentityKeys.holder=short"])).toMatch(/serviceIdentityKeys/);
      expect(renderError(minimal, ["secrets.serviceIdentityKeys.mallory=x"])).toMatch(/mallory/);
      expect(renderError(minimal, ["image.pullPolicy=Sometimes"])).toMatch(/pullPolicy/);
      expect(renderError(minimal, ["tenantAdmission=anyone"])).toMatch(/tenantAdmission/);
    });
  });
});
