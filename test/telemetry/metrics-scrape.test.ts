import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createOperatorMetrics, startHealthServer } from "@attesto/operator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { getHelm } from "../../hack/helm/get-helm.js";
import {
  applyTenant,
  createOffer,
  dpopProof,
  fetchNonce,
  fetchOffer,
  getToken,
  issueCredential,
  keyProof,
  openSession,
  p256Key,
  postCredential,
  presentation,
  redeemCode,
  submitPresentation,
  type Tenant,
} from "../hostile/support/flows.js";
import { http, postForm } from "../hostile/support/http.js";
import { SERVICE_NAMES, type ServiceName } from "../hostile/support/platform.js";
import { type LaunchedPlatform, launchPlatform } from "./support/launched-platform.js";
import { type MetricFamily, parsePrometheusText, sumOf } from "./support/prometheus-text.js";

/**
 * Prometheus metrics of a running platform (the all-in-one launcher), scraped from every service's
 * internal port after real flows: the RED metrics, the domain metrics, and every metric the Grafana
 * dashboard (charts/attesto/dashboards) queries must be what the services actually export.
 */
const PORT_OFFSET = 23_400;
const dashboardFile = new URL("../../charts/attesto/dashboards/attesto-overview.json", import.meta.url);

type Scrape = Map<string, MetricFamily>;

async function scrape(url: string): Promise<Scrape> {
  const response = await fetch(`${url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(await response.text());
}

const PROMQL_FUNCTIONS = new Set([
  "sum",
  "rate",
  "max",
  "min",
  "avg",
  "topk",
  "histogram_quantile",
  "irate",
  "increase",
]);

/** Metric names a PromQL expression selects (grouping labels, functions and selector contents are not). */
function metricNamesIn(expr: string): string[] {
  const bare = expr
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, "")
    .replace(/\{[^}]*\}/g, "{")
    .replace(/\[[^\]]*\]/g, "[");
  return [...bare.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(?=\{|\[|\)|$)/g)]
    .map((m) => m[1]!)
    .filter((name) => !PROMQL_FUNCTIONS.has(name));
}

/** Label matchers of every selector (`metric{label op "value"}`) in a PromQL expression. */
function matchersIn(expr: string): Array<{ metric: string; label: string; op: string; value: string }> {
  return [...expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{([^}]*)\}/g)].flatMap(([, metric, body]) =>
    [...body!.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"([^"]*)"/g)].map(([, label, op, value]) => ({
      metric: metric!,
      label: label!,
      op: op!,
      value: value!,
    })),
  );
}

/** Labels Prometheus attaches to every scraped series (from the target), not exported by the services. */
const TARGET_LABELS = new Set(["namespace", "instance", "pod", "job", "container", "endpoint"]);

/** Labels a PromQL expression groups by. */
const groupingLabelsIn = (expr: string) =>
  [...expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)].flatMap(([, labels]) =>
    labels!.split(",").map((label) => label.trim()),
  );

/** The chart's PrometheusRule, rendered with helm (prometheusRule.enabled). */
function renderedAlertRules(): Array<{ alert: string; expr: string }> {
  const chartDir = fileURLToPath(new URL("../../charts/attesto", import.meta.url));
  const stdout = execFileSync(
    getHelm(),
    [
      "template",
      "attesto",
      ".",
      "-f",
      "ci/minimal-values.yaml",
      "--set",
      "prometheusRule.enabled=true",
      "--show-only",
      "templates/prometheusrule.yaml",
    ],
    { cwd: chartDir, encoding: "utf8" },
  );
  const rule = parse(stdout) as { spec: { groups: Array<{ rules: Array<{ alert: string; expr: string }> }> } };
  return rule.spec.groups.flatMap((group) => group.rules);
}

describe("metrics of a running platform", () => {
  let platform: LaunchedPlatform;
  let tenant: Tenant;
  const scraped = new Map<ServiceName, Scrape>();

  beforeAll(async () => {
    platform = await launchPlatform({ portOffset: PORT_OFFSET, label: "telemetry_metrics" });
    const url = platform.url;
    tenant = await applyTenant(url);

    // Issuance on both signing paths, then a presentation that verifies and one that does not.
    const issued = await issueCredential(url, tenant, { x509: true });
    await issueCredential(url, tenant);
    const session = await openSession(url, tenant.apiKey);
    expect((await submitPresentation(url, session, await presentation(issued, session))).status).toBe(200);
    const other = await openSession(url, tenant.apiKey);
    // A key binding made for another session's nonce and audience.
    await submitPresentation(url, other, await presentation(issued, session));

    // Refusals: a DPoP proof for the wrong endpoint, a forged client attestation, a key proof
    // with a nonce the issuer never gave.
    const { code, document } = await fetchOffer(await createOffer(url, tenant.apiKey));
    const wrongHtu = await dpopProof({ key: p256Key(), htu: `${url.auth}/not-the-token-endpoint` });
    expect((await redeemCode(url, code, {})).status).toBeLessThan(500);
    await postForm(`${url.auth}/v1/token`, { grant_type: "x", "pre-authorized_code": code }, { dpop: wrongHtu });
    await postForm(
      `${url.auth}/v1/par`,
      { client_id: "wallet", response_type: "code", code_challenge: "x".repeat(43), code_challenge_method: "S256" },
      { "oauth-client-attestation": "e30.e30.sig", "oauth-client-attestation-pop": "e30.e30.sig" },
    );
    const second = await fetchOffer(await createOffer(url, tenant.apiKey));
    const token = await getToken(url, second.code);
    const badProof = await keyProof({ key: p256Key(), nonce: "never-issued", audience: document.credential_issuer });
    await postCredential(url, token, {
      credential_configuration_id: document.credential_configuration_ids[0],
      proofs: { jwt: [badProof] },
    });
    expect(await fetchNonce(url)).toBeTruthy();

    for (const service of SERVICE_NAMES) scraped.set(service, await scrape(platform.internalUrl[service]));
  });

  afterAll(async () => {
    await platform?.stop();
  });

  const of = (service: ServiceName) => scraped.get(service)!;

  it("serves /metrics on every internal port, never on a public one", async () => {
    expect([...scraped.keys()]).toEqual(SERVICE_NAMES);
    for (const service of SERVICE_NAMES) {
      const publicUrl = `http://localhost:${Number(new URL(platform.internalUrl[service]).port) - 1000}`;
      expect((await http(`${publicUrl}/metrics`)).status, `${service} public /metrics`).toBe(404);
    }
  });

  it("exports RED metrics per service and route, labelled with the service", () => {
    for (const service of SERVICE_NAMES) {
      const families = of(service);
      expect(families.get("http_requests_total")?.type, service).toBe("counter");
      expect(families.get("http_request_duration_seconds")?.type, service).toBe("histogram");
      for (const sample of families.get("http_requests_total")!.samples) {
        expect(sample.labels).toMatchObject({ service });
        expect(Object.keys(sample.labels).sort()).toEqual(["method", "route", "service", "status_code"]);
      }
    }
    const issuer = of("credential-issuer");
    const credentialOk = { method: "POST", route: "/credential", status_code: "200" };
    expect(sumOf(issuer, "http_requests_total", credentialOk)).toBeGreaterThanOrEqual(2);
    expect(sumOf(issuer, "http_request_duration_seconds_count", credentialOk)).toBe(
      sumOf(issuer, "http_requests_total", credentialOk),
    );
    expect(
      sumOf(issuer, "http_request_duration_seconds_bucket", { ...credentialOk, le: "+Inf" }),
      "+Inf bucket counts every request",
    ).toBe(sumOf(issuer, "http_requests_total", credentialOk));
    // Route templates, never raw paths with ids in them.
    const routes = of("credential-issuer")
      .get("http_requests_total")!
      .samples.map((s) => s.labels.route!);
    expect(routes).toContain("/v1/offers/:offerId");
    expect(routes.filter((r) => /[0-9a-f]{8}-[0-9a-f]{4}/.test(r))).toEqual([]);
  });

  it("exports internal RPC metrics by method and code (the calls behind a flow)", () => {
    const issuer = of("credential-issuer");
    expect(issuer.get("rpc_server_requests_total")?.type).toBe("counter");
    expect(issuer.get("rpc_server_duration_seconds")?.type).toBe("histogram");
    const redeemed = { method: "attesto.issuance.v1.GrantService/RedeemPreAuthorizedCode", code: "ok" };
    expect(sumOf(issuer, "rpc_server_requests_total", redeemed)).toBeGreaterThanOrEqual(2);
    expect(sumOf(issuer, "rpc_server_duration_seconds_count", redeemed)).toBe(
      sumOf(issuer, "rpc_server_requests_total", redeemed),
    );
    const custody = { method: "attesto.keys.v1.KeyCustodyService/Sign", code: "ok" };
    expect(sumOf(of("trust-registry"), "rpc_server_requests_total", custody)).toBeGreaterThanOrEqual(1);
  });

  it("exports issuance results by signing path and refused credential requests by error", () => {
    const issuer = of("credential-issuer");
    expect(sumOf(issuer, "attesto_credentials_issued_total", { signing: "x509" })).toBeGreaterThanOrEqual(1);
    expect(sumOf(issuer, "attesto_credentials_issued_total", { signing: "did" })).toBeGreaterThanOrEqual(1);
    const refused = issuer.get("attesto_credential_requests_refused_total")!.samples;
    expect(refused.map((s) => s.labels.error)).toEqual(expect.arrayContaining([expect.stringMatching(/proof|nonce/)]));
  });

  it("exports verification results with the failed check", () => {
    const verifier = of("verifier");
    expect(sumOf(verifier, "attesto_presentations_verified_total", { result: "completed", failed_check: "" })).toBe(1);
    // The presentation bound to another session fails its holder-binding check.
    expect(
      sumOf(verifier, "attesto_presentations_verified_total", { result: "failed", failed_check: "holder_binding" }),
    ).toBe(1);
  });

  it("exports DPoP and client attestation failures by reason", () => {
    const auth = of("auth-server");
    const dpop = auth.get("dpop_proof_failures_total")!;
    expect(dpop.type).toBe("counter");
    expect(dpop.samples.reduce((n, s) => n + s.value, 0)).toBeGreaterThanOrEqual(1);
    expect(dpop.samples.every((s) => s.labels.reason)).toBe(true);
    expect(auth.get("client_attestation_failures_total")?.type).toBe("counter");
  });

  it("exports notarization queue depth and webhook health from the scheduler", () => {
    const scheduler = of("scheduler");
    const states = (name: string) =>
      scheduler
        .get(name)!
        .samples.map((s) => s.labels.state)
        .sort();
    expect(scheduler.get("notary_notarizations")!.type).toBe("gauge");
    expect(states("notary_notarizations")).toEqual(["anchored", "dead", "failed", "pending"]);
    expect(states("webhook_deliveries")).toEqual(["dead", "delivered", "failed", "pending", "running"]);
    expect(scheduler.get("webhook_deliveries_total")?.type).toBe("counter");
    expect(scheduler.get("notary_anchor_attempts_total")?.type).toBe("counter");
    expect(scheduler.get("notary_oldest_unanchored_seconds")?.type).toBe("gauge");
  });

  it("reports the process once (not under every service label) and the database pool of every service", () => {
    const reporting = SERVICE_NAMES.filter((service) => of(service).has("process_cpu_seconds_total"));
    expect(reporting).toHaveLength(1);
    for (const service of SERVICE_NAMES) {
      const pool = of(service).get("db_pool_connections")!;
      expect(pool.samples.map((s) => s.labels.state).sort(), service).toEqual(["idle", "total", "waiting"]);
      expect(of(service).get("db_pool_max_connections")?.samples[0]?.value, service).toBeGreaterThan(0);
    }
  });

  it("backs every metric the Grafana dashboard queries with a metric the platform or operator exports", async () => {
    const operatorMetrics = createOperatorMetrics({ queueDepth: () => 0 });
    const operator = await startHealthServer({
      host: "127.0.0.1",
      port: 0,
      registry: operatorMetrics.registry,
      ready: () => true,
    });
    let exported: Scrape[];
    try {
      exported = [...scraped.values(), await scrape(operator.url)];
    } finally {
      await operator.close();
    }
    const familyOf = (name: string) => {
      for (const families of exported) {
        const family = families.get(name) ?? families.get(name.replace(/_(bucket|sum|count)$/, ""));
        if (family && (family.name === name || family.type === "histogram")) return family;
      }
      return undefined;
    };
    /** Label names and values seen on a metric across every service that exports it. */
    const labelsOf = (name: string) => {
      const seen = new Map<string, Set<string>>();
      for (const families of exported) {
        for (const sample of [...families.values()].flatMap((f) => f.samples).filter((s) => s.name === name)) {
          for (const [label, value] of Object.entries(sample.labels)) {
            if (!seen.has(label)) seen.set(label, new Set());
            seen.get(label)!.add(value);
          }
        }
      }
      return seen;
    };

    const dashboard = JSON.parse(readFileSync(dashboardFile, "utf8")) as {
      panels: Array<{ title: string; targets?: Array<{ expr: string }> }>;
    };
    const dashboardExprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
    const alertExprs = renderedAlertRules().map((rule) => rule.expr);
    expect(alertExprs).toHaveLength(7);
    const exprs = [...dashboardExprs, ...alertExprs];
    const queried = [...new Set(exprs.flatMap(metricNamesIn))];
    expect(queried).toEqual(
      expect.arrayContaining([
        "http_requests_total",
        "http_request_duration_seconds_bucket",
        "attesto_credentials_issued_total",
        "attesto_presentations_verified_total",
        "dpop_proof_failures_total",
        "notary_notarizations",
        "webhook_deliveries_total",
        "attesto_operator_reconciles_total",
        // Saturation row and the pool alert.
        "process_cpu_seconds_total",
        "process_resident_memory_bytes",
        "nodejs_eventloop_lag_p99_seconds",
        "db_pool_connections",
        "db_pool_max_connections",
        // Alerts.
        "webhook_deliveries_total",
        "notary_anchor_attempts_total",
        "notary_oldest_unanchored_seconds",
      ]),
    );
    expect(
      queried.filter((name) => !familyOf(name)),
      "dashboard and alert metrics nothing exports",
    ).toEqual([]);

    // Labels the dashboard filters and groups by exist on the metrics that were observed, and an
    // equality matcher names a value the platform really emits (e.g. result="failed").
    for (const expr of exprs) {
      const observed = metricNamesIn(expr)
        .map(labelsOf)
        .filter((labels) => labels.size > 0);
      for (const label of groupingLabelsIn(expr).filter((l) => l !== "le" && !TARGET_LABELS.has(l))) {
        for (const labels of observed) expect(labels.has(label), `label "${label}" in ${expr}`).toBe(true);
      }
      for (const { metric, label, op, value } of matchersIn(expr).filter((m) => !TARGET_LABELS.has(m.label))) {
        const labels = labelsOf(metric);
        if (labels.size === 0) continue;
        expect(labels.has(label), `label "${label}" of ${metric} in ${expr}`).toBe(true);
        if ((op === "=" || op === "!=") && !value.startsWith("$")) {
          expect([...labels.get(label)!], `value ${label}="${value}" of ${metric}`).toContain(value);
        }
      }
    }
  });
});
