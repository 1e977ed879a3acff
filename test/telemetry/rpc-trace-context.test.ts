import { schemaV1 } from "@attesto/proto";
import { clientInterceptors, createRpcClient, type InternalServer, startInternalServer } from "@attesto/runtime/rpc";
import { startTracing, type Tracing } from "@attesto/runtime/telemetry";
import { testCredentialSigner, testCredentialVerifier } from "@attesto/runtime/testing";
import { openDatabase, testDatabaseUrl } from "@attesto/store";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { trace } from "@opentelemetry/api";
import { sql } from "kysely";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OtlpReceiver, type ReceivedSpan, SpanKind, startOtlpReceiver } from "./support/otlp-receiver.js";

/**
 * W3C trace context over the internal Connect port on each wire the port speaks: Connect over
 * HTTP/1.1 (what createRpcClient uses), Connect over cleartext HTTP/2 and gRPC over h2c, the
 * latter two invisible to the HTTP instrumentation. The callee's handler queries PostgreSQL
 * through kysely + pg (the test database: real PostgreSQL or the embedded PGlite wire server),
 * so its query span must land under the RPC server span.
 */
describe("trace context across internal RPC", () => {
  let receiver: OtlpReceiver;
  let tracing: Tracing;
  let server: InternalServer;
  let database: ReturnType<typeof openDatabase>;
  let spans: ReceivedSpan[] = [];
  const traceIds: Record<string, string> = {};

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    tracing = (await startTracing({ serviceName: "rpc-trace-test", endpoint: receiver.endpoint }))!;
    database = openDatabase({ url: testDatabaseUrl(), schema: "public", poolMax: 2 });
    server = await startInternalServer({
      service: "schema-registry",
      version: "0.0.0",
      host: "127.0.0.1",
      port: 0,
      verifier: testCredentialVerifier("schema-registry"),
      logger: pino({ level: "silent" }),
      routes: (router) =>
        router.service(schemaV1.SchemaService, {
          async listCredentialTypes() {
            await sql`select 1 as traced_query`.execute(database.db);
            return { credentialTypes: [] };
          },
          getCredentialType() {
            return {};
          },
        }),
    });
    // ListCredentialTypes is the trust registry's to call (caller policy).
    const signer = testCredentialSigner("trust-registry");
    const target = { signer, audience: "schema-registry" };
    const clients = {
      "connect-http1.1": createRpcClient(schemaV1.SchemaService, { ...target, baseUrl: server.url, timeoutMs: 5000 }),
      "connect-h2c": createClient(
        schemaV1.SchemaService,
        createConnectTransport({ baseUrl: server.url, httpVersion: "2", interceptors: clientInterceptors(target) }),
      ),
      "grpc-h2c": createClient(
        schemaV1.SchemaService,
        createGrpcTransport({ baseUrl: server.url, interceptors: clientInterceptors(target) }),
      ),
    };
    const tracer = trace.getTracer("rpc-trace-test");
    for (const [wire, client] of Object.entries(clients)) {
      await tracer.startActiveSpan(`caller ${wire}`, async (span) => {
        traceIds[wire] = span.spanContext().traceId;
        await client.listCredentialTypes({});
        span.end();
      });
    }
    await server.close();
    await tracing.shutdown();
    spans = receiver.spans();
  });

  afterAll(async () => {
    await database?.close();
    await receiver?.close();
  });

  for (const wire of ["connect-http1.1", "connect-h2c", "grpc-h2c"]) {
    it(`links caller, client span, server span and query span (${wire})`, () => {
      const inTrace = spans.filter((s) => s.traceId === traceIds[wire]);
      const caller = inTrace.find((s) => s.name === `caller ${wire}`)!;
      const client = inTrace.find(
        (s) => s.kind === SpanKind.CLIENT && s.attributes["rpc.method"] === "ListCredentialTypes",
      );
      const serverSpan = inTrace.find(
        (s) => s.kind === SpanKind.SERVER && s.attributes["rpc.method"] === "ListCredentialTypes",
      );
      expect(client, "client span").toMatchObject({
        parentSpanId: caller.spanId,
        name: "attesto.schema.v1.SchemaService/ListCredentialTypes",
        attributes: expect.objectContaining({ "rpc.system": "connect_rpc", "peer.service": "schema-registry" }),
      });
      expect(serverSpan, "server span").toMatchObject({
        attributes: expect.objectContaining({ "attesto.service": "schema-registry" }),
      });
      // Directly under the client span, or under the HTTP/1.1 client span the HTTP instrumentation adds.
      const parent = inTrace.find((s) => s.spanId === serverSpan!.parentSpanId);
      expect(parent, "server span's parent is in the caller's trace").toBeDefined();
      expect(parent!.spanId === client!.spanId || parent!.parentSpanId === client!.spanId).toBe(true);
      const query = inTrace.find(
        (s) => s.scope === "@opentelemetry/instrumentation-pg" && s.name.startsWith("pg.query"),
      );
      expect(query, "query span").toMatchObject({
        parentSpanId: serverSpan!.spanId,
        attributes: expect.objectContaining({ "db.query.text": "select 1 as traced_query" }),
      });
    });
  }

  it("puts every server span in its caller's trace (none starts a trace of its own)", () => {
    const serverSpans = spans.filter((s) => s.kind === SpanKind.SERVER && s.attributes["rpc.system"] === "connect_rpc");
    expect(serverSpans).toHaveLength(3);
    expect(serverSpans.map((s) => s.traceId).sort()).toEqual(Object.values(traceIds).sort());
  });
});
