import { schemaV1 } from "@attesto/proto";
import { notFound, unavailable } from "@attesto/runtime/errors";
import {
  callerKey,
  clientInterceptors,
  createRpcClient,
  enableInProcessRpc,
  type InternalServer,
  rpcErrorCodeOf,
  startInternalServer,
} from "@attesto/runtime/rpc";
import { create } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  type ConnectRouter,
  createClient,
  createContextKey,
  createContextValues,
  type HandlerContext,
} from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import pino from "pino";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testCredentialSigner, testCredentialVerifier } from "../src/testing.js";

/**
 * In-process calls (the all-in-one's own transport, in-process-transport.ts) behave as calls over
 * h2c, and the h2c client and server path (h2c-transport.ts, h2c-unary-handler.ts) behave as
 * Connect's own transport and handler: the same scenarios run each way against an internal server,
 * and what the caller and the handler observe must be equal: answers, headers and trailers, errors
 * (code, message, metadata), the caller policy, the deadline, context values, metrics.
 */

const logger = pino({ level: "silent" });
/** A key a caller could set in its own context values: it must never reach the handler. */
const probeKey = createContextKey("unset", { description: "probe" });

interface Seen {
  caller: string;
  probe: string;
  header: Record<string, string | null>;
  timeoutMs: number | undefined;
  signal: AbortSignal;
}
let seen: Seen[] = [];

const see = (context: HandlerContext) => {
  const header = Object.fromEntries(
    ["content-type", "connect-protocol-version", "connect-timeout-ms", "user-agent"].map((name) => [
      name,
      context.requestHeader.get(name),
    ]),
  );
  seen.push({
    caller: context.values.get(callerKey),
    probe: context.values.get(probeKey),
    header: { ...header, authorization: context.requestHeader.get("authorization")?.slice(0, 7) ?? null },
    timeoutMs: context.timeoutMs(),
    signal: context.signal,
  });
};

/** An answer the handler keeps (as a cache would) and hands out to every caller of type "retained". */
const retained = create(schemaV1.GetCredentialTypeResponseSchema, {
  credentialType: {
    type: "retained",
    version: "v1",
    useCase: ["a"],
    schema: { properties: { name: { type: "string" } } },
  },
});

/** What the handler does is chosen by the requested type. */
function routes(router: ConnectRouter) {
  router.service(schemaV1.SchemaService, {
    getCredentialType(req, context) {
      see(context);
      const type = req.selector.case === "typeVersion" ? req.selector.value.type : "";
      if (req.selector.case === "typeVersion") req.selector.value.type = "changed by the handler";
      switch (type) {
        case "retained":
          return retained;
        case "not-found":
          throw notFound("Credential type not found");
        case "unavailable":
          throw unavailable("the schema store is down");
        case "failed-precondition":
          throw new ConnectError("not yet", Code.FailedPrecondition, { "x-why": "because" });
        case "bug":
          throw new Error("a secret detail");
      }
      context.responseHeader.set("x-answer", "1");
      context.responseTrailer.set("x-trailer", "2");
      return { credentialType: { type, version: "v1", useCase: ["a", "b"] } };
    },
    async listCredentialTypes(_req, context) {
      see(context);
      await new Promise((resolve) => setTimeout(resolve, 800));
      context.signal.throwIfAborted();
      return { credentialTypes: [] };
    },
  });
}

const requestOf = (type: string) =>
  create(schemaV1.GetCredentialTypeRequestSchema, {
    selector: { case: "typeVersion", value: { type, version: "v1" } },
  });

/** How a call ended, in the terms a caller can see. */
async function outcome(call: Promise<object>) {
  try {
    return { ok: await call };
  } catch (error) {
    const failure = ConnectError.from(error);
    return {
      code: Code[failure.code],
      message: failure.rawMessage,
      errorCode: rpcErrorCodeOf(error),
      why: failure.metadata.get("x-why"),
    };
  }
}

describe.each(["network", "in-process", "Connect's transport and handler"] as const)("internal calls, %s", (mode) => {
  let server: InternalServer;
  const metrics = new Registry();
  const clientOf = (caller: "credential-issuer" | "holder" | "trust-registry", timeoutMs = 5_000) => {
    const options = {
      baseUrl: server.url,
      audience: "schema-registry",
      signer: testCredentialSigner(caller),
      timeoutMs,
      retries: 0,
    };
    if (mode !== "Connect's transport and handler") return createRpcClient(schemaV1.SchemaService, options);
    const transport = createConnectTransport({
      baseUrl: server.url,
      httpVersion: "2",
      defaultTimeoutMs: timeoutMs,
      interceptors: clientInterceptors(options),
    });
    return createClient(schemaV1.SchemaService, transport);
  };

  beforeAll(async () => {
    server = await startInternalServer({
      service: "schema-registry",
      version: "test",
      host: "127.0.0.1",
      port: 0,
      routes,
      verifier: testCredentialVerifier("schema-registry"),
      metrics,
      logger,
      connectHandlerOnly: mode === "Connect's transport and handler",
    });
    enableInProcessRpc(mode === "in-process");
  });
  afterAll(async () => {
    enableInProcessRpc(false);
    await server.close();
  });

  it("answers with a copy, the handler's header and trailer, and the caller's identity and deadline", async () => {
    seen = [];
    const request = requestOf("pid");
    const header = new Headers();
    const trailer = new Headers();
    const res = await clientOf("credential-issuer").getCredentialType(request, {
      onHeader: (h) => {
        for (const [key, value] of h) header.set(key, value);
      },
      onTrailer: (t) => {
        for (const [key, value] of t) trailer.set(key, value);
      },
      contextValues: createContextValues().set(probeKey, "set by the caller").set(callerKey, "operator"),
    });
    expect(res.credentialType).toMatchObject({ type: "pid", version: "v1", useCase: ["a", "b"] });
    expect(request.selector.value).toMatchObject({ type: "pid" });
    expect([header.get("x-answer"), header.get("content-type"), trailer.get("x-trailer")]).toEqual([
      "1",
      "application/proto",
      "2",
    ]);
    const [handler] = seen;
    expect(handler).toMatchObject({
      caller: "credential-issuer",
      probe: "unset",
      header: {
        "content-type": "application/proto",
        "connect-protocol-version": "1",
        "connect-timeout-ms": "5000",
        "user-agent": "connect-es/2.1.2",
        authorization: "Bearer ",
      },
    });
    expect(handler?.timeoutMs).toBeGreaterThan(4_000);
    expect(handler?.timeoutMs).toBeLessThanOrEqual(5_000);
    // The call is over: the handler's signal says so.
    expect(handler?.signal.aborted).toBe(true);
    expect((handler?.signal.reason as Error | undefined)?.name).toBe("AbortError");
  });

  it("answers each caller its own copy of what the handler keeps", async () => {
    const client = clientOf("credential-issuer");
    const first = await client.getCredentialType(requestOf("retained"));
    const answered = first.credentialType as schemaV1.CredentialType;
    answered.useCase.push("changed by a caller");
    const schema = answered.schema as { properties: { name: { type: string } } };
    schema.properties.name.type = "number";
    const second = await client.getCredentialType(requestOf("retained"));
    expect(second).toEqual(retained);
    expect(retained.credentialType).toMatchObject({
      useCase: ["a"],
      schema: { properties: { name: { type: "string" } } },
    });
  });

  it("fails as the handler failed: mapped errors with their code, Connect errors with their metadata, bugs hidden", async () => {
    const client = clientOf("credential-issuer");
    expect(await outcome(client.getCredentialType(requestOf("not-found")))).toEqual({
      code: "NotFound",
      message: "Credential type not found",
      errorCode: "not_found",
      why: null,
    });
    expect(await outcome(client.getCredentialType(requestOf("unavailable")))).toEqual({
      code: "Unavailable",
      message: "the schema store is down",
      errorCode: "unavailable",
      why: null,
    });
    expect(await outcome(client.getCredentialType(requestOf("failed-precondition")))).toEqual({
      code: "FailedPrecondition",
      message: "not yet",
      errorCode: undefined,
      why: "because",
    });
    expect(await outcome(client.getCredentialType(requestOf("bug")))).toEqual({
      code: "Internal",
      message: "Internal error",
      errorCode: undefined,
      why: null,
    });
  });

  it("refuses a caller the policy does not name, whatever it puts in its context values", async () => {
    seen = [];
    const call = clientOf("holder").getCredentialType(requestOf("pid"), {
      contextValues: createContextValues().set(callerKey, "credential-issuer"),
    });
    expect(await outcome(call)).toMatchObject({ code: "PermissionDenied" });
    expect(seen).toEqual([]);
  });

  it("stops waiting at the deadline, and the handler's signal is aborted", async () => {
    seen = [];
    const started = performance.now();
    const outcomeOf = await outcome(clientOf("trust-registry", 150).listCredentialTypes({}));
    expect(outcomeOf).toMatchObject({ code: "DeadlineExceeded" });
    // At the deadline, not when the handler gives up.
    expect(performance.now() - started).toBeLessThan(600);
    expect(seen[0]?.timeoutMs).toBeLessThanOrEqual(150);
    // Over h2c the handler's own deadline timer fires a moment after the caller's.
    await expect.poll(() => seen[0]?.signal.aborted).toBe(true);
  });

  it("counts every call in the server's metrics, refused ones included", async () => {
    // Connect's own client resets the stream with INTERNAL_ERROR at its deadline, and Connect's
    // handler counts that as `internal` when the reset comes before its own deadline timer (a race
    // its timers lose under load): the h2c path resets with CANCEL, which the server counts as the
    // deadline it is.
    const label = (method: string, code: string) =>
      mode === "Connect's transport and handler" && method.endsWith("/ListCredentialTypes") && code === "internal"
        ? "deadline_exceeded"
        : code;
    const counts = async () =>
      Object.fromEntries(
        ((await metrics.getSingleMetric("rpc_server_requests_total")?.get())?.values ?? []).map((value) => [
          `${value.labels.method} ${label(String(value.labels.method), String(value.labels.code))}`,
          value.value,
        ]),
      );
    // The handler that missed its deadline ends after the caller stopped waiting.
    await expect.poll(counts, { timeout: 2_000 }).toEqual({
      "attesto.schema.v1.SchemaService/GetCredentialType ok": 3,
      "attesto.schema.v1.SchemaService/GetCredentialType not_found": 1,
      "attesto.schema.v1.SchemaService/GetCredentialType unavailable": 1,
      "attesto.schema.v1.SchemaService/GetCredentialType failed_precondition": 1,
      "attesto.schema.v1.SchemaService/GetCredentialType internal": 1,
      "attesto.schema.v1.SchemaService/GetCredentialType permission_denied": 1,
      "attesto.schema.v1.SchemaService/ListCredentialTypes deadline_exceeded": 1,
    });
  });
});
