import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  applyTenant,
  createOffer,
  dpopProof,
  expectStatus,
  fetchOffer,
  keyProof,
  PRE_AUTHORIZED_GRANT,
  p256Key,
  withDpopNonce,
} from "../hostile/support/flows.js";
import { http, postForm } from "../hostile/support/http.js";
import { type LaunchedPlatform, launchPlatform } from "./support/launched-platform.js";
import { type OtlpReceiver, type ReceivedSpan, SpanKind, startOtlpReceiver } from "./support/otlp-receiver.js";

/**
 * One trace across the platform, as an SRE sees it in a tracing backend: the all-in-one launcher
 * (child process) exports OTLP to an in-test receiver; a wallet runs the pre-authorized X.509 flow
 * with its own `traceparent`, and the trace must go wallet → auth server → credential issuer
 * (GrantService RPC) and wallet → credential issuer → trust registry (KeyCustodyService.Sign RPC)
 * → PostgreSQL, every span linked to its parent across process-internal service boundaries.
 */
const PORT_OFFSET = 23_600;

const hex = (bytes: number) => randomBytes(bytes).toString("hex");

describe("distributed trace of an issuance", () => {
  let receiver: OtlpReceiver;
  let platform: LaunchedPlatform;
  const traceId = hex(16);
  const walletSpanId = hex(8);
  const traceparent = `00-${traceId}-${walletSpanId}-01`;
  let spans: ReceivedSpan[] = [];
  type LogLine = Record<string, unknown> & { service?: string; message?: string; trace_id?: string; span_id?: string };
  let logLines: LogLine[] = [];

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    platform = await launchPlatform({
      portOffset: PORT_OFFSET,
      label: "telemetry_trace",
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, LOG_LEVEL: "info" },
    });

    // The wallet's side of the pre-authorized flow on the X.509 path (DPoP-bound token).
    const url = platform.url;
    const tenant = await applyTenant(url);
    const offer = await createOffer(url, tenant.apiKey);
    const { code, document } = await fetchOffer(offer);
    const dpopKey = p256Key();
    const token = expectStatus(
      await withDpopNonce(async (nonce) =>
        postForm(
          `${url.auth}/v1/token`,
          { grant_type: PRE_AUTHORIZED_GRANT, "pre-authorized_code": code },
          { traceparent, dpop: await dpopProof({ key: dpopKey, htu: `${url.auth}/v1/token`, nonce }) },
        ),
      ),
      200,
      "POST /v1/token",
    );
    const accessToken = (token.json as { access_token: string }).access_token;
    const nonceResult = expectStatus(await http(`${url.issuer}/v1/nonce`, { method: "POST" }), 200, "nonce");
    const holder = p256Key();
    const proof = await keyProof({
      key: holder,
      nonce: (nonceResult.json as { c_nonce: string }).c_nonce,
      audience: document.credential_issuer,
    });
    expectStatus(
      await withDpopNonce(
        async (nonce) =>
          http(`${url.issuer}/credential`, {
            method: "POST",
            headers: {
              traceparent,
              "content-type": "application/json",
              authorization: `DPoP ${accessToken}`,
              dpop: await dpopProof({ key: dpopKey, htu: `${url.issuer}/credential`, accessToken, nonce }),
            },
            body: JSON.stringify({
              credential_configuration_id: document.credential_configuration_ids[0],
              proofs: { jwt: [proof] },
            }),
          }),
        token.headers.get("dpop-nonce") ?? undefined,
      ),
      200,
      "POST /credential",
    );
    // Stopping drains every request and flushes the tracer before the process exits.
    await platform.stop();
    spans = receiver.spans().filter((span) => span.traceId === traceId);
    logLines = platform.launcher
      .output()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as LogLine);
  });

  afterAll(async () => {
    await platform?.stop().catch(() => {});
    await receiver?.close();
  });

  const byId = () => new Map(spans.map((span) => [span.spanId, span]));

  /** The chain of parents up to (not including) the wallet's span; fails on a broken link. */
  function ancestorsOf(span: ReceivedSpan): ReceivedSpan[] {
    const index = byId();
    const chain: ReceivedSpan[] = [];
    let parentId = span.parentSpanId;
    while (parentId && parentId !== walletSpanId) {
      const parent = index.get(parentId);
      expect(parent, `parent ${parentId} of span "${span.name}" is in the trace`).toBeDefined();
      chain.push(parent!);
      parentId = parent!.parentSpanId;
    }
    expect(parentId, `span "${span.name}" descends from the wallet's span`).toBe(walletSpanId);
    return chain;
  }

  /** The request spans of a POST route, named after the route template (a DPoP nonce retry makes two). */
  const requestSpansOf = (service: string, route: string) =>
    spans.filter(
      (s) =>
        s.attributes["attesto.service"] === service &&
        s.attributes["http.route"] === route &&
        s.name === `POST ${route}`,
    );
  const rpcServerSpan = (service: string, rpcService: string, method: string) =>
    spans.find(
      (s) =>
        s.kind === SpanKind.SERVER &&
        s.attributes["attesto.service"] === service &&
        s.attributes["rpc.service"] === rpcService &&
        s.attributes["rpc.method"] === method,
    );

  it("exports OTLP/JSON to the configured collector address", () => {
    expect(receiver.rejected()).toEqual([]);
    expect(spans.length).toBeGreaterThan(0);
  });

  it("continues the wallet's trace in the auth server, then in the issuer's GrantService", () => {
    const tokenSpans = requestSpansOf("auth-server", "/v1/token");
    expect(tokenSpans.length, "auth-server spans of POST /v1/token").toBeGreaterThan(0);
    for (const span of tokenSpans) expect(span).toMatchObject({ kind: SpanKind.SERVER, parentSpanId: walletSpanId });

    const grant = spans.find(
      (s) =>
        s.kind === SpanKind.SERVER &&
        s.attributes["attesto.service"] === "credential-issuer" &&
        s.attributes["rpc.service"] === "attesto.issuance.v1.GrantService",
    );
    expect(grant, "credential-issuer GrantService server span").toBeDefined();
    const chain = ancestorsOf(grant!);
    // Its parent is the auth server's client span of that call, inside the token request.
    expect(chain[0]).toMatchObject({ kind: SpanKind.CLIENT });
    expect(chain.filter((s) => tokenSpans.includes(s))).toHaveLength(1);
  });

  it("continues it from the issuer's credential endpoint into key custody (Sign) and PostgreSQL", () => {
    const credentialSpans = requestSpansOf("credential-issuer", "/credential");
    expect(credentialSpans.length, "credential-issuer spans of POST /credential").toBeGreaterThan(0);
    for (const span of credentialSpans)
      expect(span).toMatchObject({ kind: SpanKind.SERVER, parentSpanId: walletSpanId });

    const sign = rpcServerSpan("trust-registry", "attesto.keys.v1.KeyCustodyService", "Sign");
    expect(sign, "trust-registry KeyCustodyService/Sign server span").toBeDefined();
    const signChain = ancestorsOf(sign!);
    expect(signChain[0]).toMatchObject({
      kind: SpanKind.CLIENT,
      name: "attesto.keys.v1.KeyCustodyService/Sign",
      attributes: expect.objectContaining({ "peer.service": "trust-registry" }),
    });
    const credentialSpan = signChain.find((s) => credentialSpans.includes(s));
    expect(credentialSpan, "the Sign call happens inside a POST /credential").toBeDefined();

    const trustRegistrySpans = new Set(
      spans.filter((s) => s.attributes["attesto.service"] === "trust-registry").map((s) => s.spanId),
    );
    const queries = spans.filter(
      (s) => s.scope === "@opentelemetry/instrumentation-pg" && s.name.startsWith("pg.query"),
    );
    const custodyQuery = queries.find((q) => ancestorsOf(q).some((s) => trustRegistrySpans.has(s.spanId)));
    expect(custodyQuery, "a PostgreSQL query span inside a key custody call").toBeDefined();
    expect(custodyQuery).toMatchObject({
      kind: SpanKind.CLIENT,
      attributes: expect.objectContaining({ "db.system.name": "postgresql" }),
    });
    // And the issuer's own queries sit under its credential request.
    expect(queries.some((q) => ancestorsOf(q).some((s) => s.spanId === credentialSpan!.spanId))).toBe(true);
  });

  it("says at start-up that tracing is on and where spans go", () => {
    expect(logLines).toContainEqual(
      expect.objectContaining({
        message: "tracing on: exporting spans over OTLP/HTTP",
        // The receiver's bare collector address gets the standard traces path.
        otlp_endpoint: `${receiver.endpoint}/v1/traces`,
      }),
    );
  });

  it("puts the trace and span id on the log lines written while serving the traced requests", () => {
    const traced = logLines.filter((line) => line.trace_id === traceId);
    // The requests' own lines (each service logs its request completion), in both services.
    for (const service of ["auth-server", "credential-issuer"]) {
      expect(
        traced.some((line) => line.service === service && line.message === "request completed"),
        `${service}: "request completed" of the traced request carries trace_id`,
      ).toBe(true);
    }
    // Both ends of each traced request: its "incoming request" line is written inside its span too.
    const tokenLines = logLines.filter(
      (line) => line.service === "auth-server" && (line.req as { url?: string } | undefined)?.url === "/v1/token",
    );
    expect(tokenLines.length).toBeGreaterThan(0);
    for (const line of tokenLines) expect(line).toMatchObject({ message: "incoming request", trace_id: traceId });
    // Every such line names a span of this trace: a log line leads to its span.
    const spanIds = new Set(spans.map((span) => span.spanId));
    for (const line of traced) expect(spanIds, `span ${line.span_id} of "${line.message}"`).toContain(line.span_id);
    // Lines of requests outside any trace carry none.
    expect(logLines.filter((line) => line.trace_id === undefined).length).toBeGreaterThan(0);
  });

  it("names the trace's spans by service and operation, not by raw URL", () => {
    const services = new Set(spans.map((s) => s.attributes["attesto.service"]).filter(Boolean));
    expect([...services].sort()).toEqual(
      expect.arrayContaining(["auth-server", "credential-issuer", "trust-registry"]),
    );
    for (const span of spans) expect(span.name, "no span is named after a raw URL").not.toMatch(/https?:\/\//);
    // Request spans after their route template, RPC spans after their method, hooks after nothing
    // longer than an identifier (never a plugin's source text).
    const names = new Set(spans.map((s) => s.name));
    expect([...names]).toEqual(
      expect.arrayContaining([
        "POST /v1/token",
        "POST /credential",
        "handler POST /credential",
        "attesto.keys.v1.KeyCustodyService/Sign",
      ]),
    );
    expect([...names].filter((name) => name === "request" || /[{}()=>]/.test(name))).toEqual([]);
  });
});
