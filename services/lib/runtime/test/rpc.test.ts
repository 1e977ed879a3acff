import { fileURLToPath } from "node:url";
import { ledgerV1, schemaV1 } from "@attesto/proto";
import { notFound, unavailable } from "@attesto/runtime/errors";
import {
  callerKey,
  clientInterceptors,
  createRpcClient,
  fromRpcError,
  type InternalServer,
  serverInterceptors,
  startInternalServer,
} from "@attesto/runtime/rpc";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter, createClient, createRouterTransport } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import pino from "pino";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { testCredentialSigner, testCredentialVerifier } from "../src/testing.js";

const logger = pino({ level: "silent" });
const verifier = testCredentialVerifier("schema-registry");
const signer = testCredentialSigner("credential-issuer");

/** A tiny SchemaService that tells who called it (a test double of the callee, not of the runtime). */
function schemaRoutes(router: ConnectRouter) {
  router.service(schemaV1.SchemaService, {
    getCredentialType(req, context) {
      if (req.selector.case !== "typeVersion" || req.selector.value.type !== "pid") {
        throw notFound("Credential type not found");
      }
      return {
        credentialType: {
          type: "pid",
          version: req.selector.value.version,
          description: context.values.get(callerKey),
        },
      };
    },
    listCredentialTypes() {
      return { credentialTypes: [{ type: "pid", version: "v1" }] };
    },
  });
}

const getPid = create(schemaV1.GetCredentialTypeRequestSchema, {
  selector: { case: "typeVersion", value: { type: "pid", version: "v1" } },
});

describe("internal RPC in memory", () => {
  const transport = createRouterTransport(schemaRoutes, {
    router: { interceptors: serverInterceptors(verifier, logger) },
    transport: { interceptors: clientInterceptors({ signer, audience: "schema-registry" }) },
  });
  const client = createClient(schemaV1.SchemaService, transport);

  it("calls a method with the caller's verified identity", async () => {
    const res = await client.getCredentialType(getPid);
    expect(res.credentialType).toMatchObject({ type: "pid", version: "v1", description: "credential-issuer" });
  });

  it("maps an AppError to a Connect code and back", async () => {
    const error = await client
      .getCredentialType({ selector: { case: "vct", value: "https://x/schemas/none/v1" } })
      .catch((e: unknown) => e);
    expect(ConnectError.from(error).code).toBe(Code.NotFound);
    const appError = fromRpcError(error, "schema registry");
    expect(appError).toMatchObject({ status: 404, code: "not_found", message: "Credential type not found" });
  });

  it("rejects a credential minted for another service", async () => {
    const wrongAudience = createClient(
      schemaV1.SchemaService,
      createRouterTransport(schemaRoutes, {
        router: { interceptors: serverInterceptors(verifier, logger) },
        transport: { interceptors: clientInterceptors({ signer, audience: "verifier" }) },
      }),
    );
    const error = await wrongAudience.listCredentialTypes({}).catch((e: unknown) => e);
    expect(ConnectError.from(error).code).toBe(Code.Unauthenticated);
  });
});

describe("client retries", () => {
  function flakyLedger(failures: number) {
    const calls = { notarize: 0, getRecord: 0 };
    const routes = (router: ConnectRouter) =>
      router.service(ledgerV1.LedgerService, {
        notarize() {
          calls.notarize++;
          if (calls.notarize <= failures) throw unavailable("ledger down");
          return { objectId: "o1", chain: "ledger" };
        },
        getRecord() {
          calls.getRecord++;
          if (calls.getRecord <= failures) throw unavailable("ledger down");
          return { objectId: "o1" };
        },
      });
    const client = createClient(
      ledgerV1.LedgerService,
      createRouterTransport(routes, {
        router: {
          interceptors: serverInterceptors(testCredentialVerifier("ledger"), logger),
        },
        transport: {
          interceptors: clientInterceptors({
            signer: testCredentialSigner("scheduler"),
            audience: "ledger",
            retries: 2,
          }),
        },
      }),
    );
    return { client, calls };
  }

  it("retries idempotent methods when the callee is unavailable", async () => {
    const { client, calls } = flakyLedger(2);
    expect((await client.getRecord({ objectId: "o1" })).objectId).toBe("o1");
    expect(calls.getRecord).toBe(3);
  });

  it("never retries methods with side effects", async () => {
    const { client, calls } = flakyLedger(1);
    const error = await client.notarize({ digest: "ab" }).catch((e: unknown) => e);
    expect(ConnectError.from(error).code).toBe(Code.Unavailable);
    expect(calls.notarize).toBe(1);
    expect(fromRpcError(error, "ledger")).toMatchObject({
      status: 503,
      code: "unavailable",
      message: "ledger is unavailable",
    });
  });
});

describe("internal RPC over a real port", () => {
  let server: InternalServer;
  const registry = new Registry();
  beforeAll(async () => {
    server = await startInternalServer({
      service: "schema-registry",
      version: "9.9.9",
      host: "127.0.0.1",
      port: 0,
      routes: schemaRoutes,
      verifier,
      metrics: registry,
      logger,
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it("serves typed Connect clients with deadlines and credentials", async () => {
    const client = createRpcClient(schemaV1.SchemaService, {
      baseUrl: server.url,
      audience: "schema-registry",
      signer,
      timeoutMs: 2000,
    });
    const res = await client.getCredentialType(getPid);
    expect(res.credentialType?.description).toBe("credential-issuer");
  });

  it("rejects a call without a service credential", async () => {
    const anonymous = createClient(
      schemaV1.SchemaService,
      createConnectTransport({ baseUrl: server.url, httpVersion: "1.1" }),
    );
    const error = await anonymous.listCredentialTypes({}).catch((e: unknown) => e);
    expect(ConnectError.from(error).code).toBe(Code.Unauthenticated);
    const plain = await fetch(`${server.url}/attesto.schema.v1.SchemaService/ListCredentialTypes`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(plain.status).toBe(401);
  });

  it("also speaks HTTP/2 (h2c) to Connect clients, binary (its own unary path) and JSON (Connect's handler)", async () => {
    for (const useBinaryFormat of [true, false]) {
      const transport = createConnectTransport({
        baseUrl: server.url,
        httpVersion: "2",
        useBinaryFormat,
        interceptors: clientInterceptors({ signer, audience: "schema-registry" }),
      });
      const res = await createClient(schemaV1.SchemaService, transport).getCredentialType(getPid);
      expect(res.credentialType).toMatchObject({ type: "pid", description: "credential-issuer" });
    }
  });

  it("aborts the handler's signal when its h2c caller gives up, and the connection serves the next call", async () => {
    let aborted: Promise<unknown> | undefined;
    const slow = await startInternalServer({
      service: "schema-registry",
      version: "9.9.9",
      host: "127.0.0.1",
      port: 0,
      verifier,
      logger,
      routes: (router) => {
        router.service(schemaV1.SchemaService, {
          getCredentialType: async (req, context) => {
            if (req.selector.case === "typeVersion" && req.selector.value.type === "slow") {
              aborted = new Promise((resolve) =>
                context.signal.addEventListener("abort", () => resolve(context.signal.reason)),
              );
              await aborted;
            }
            return { credentialType: { type: "pid", version: "v1" } };
          },
        });
      },
    });
    try {
      const client = createRpcClient(schemaV1.SchemaService, {
        baseUrl: slow.url,
        audience: "schema-registry",
        signer,
        timeoutMs: 5000,
        retries: 0,
      });
      const caller = new AbortController();
      const slowCall = create(schemaV1.GetCredentialTypeRequestSchema, {
        selector: { case: "typeVersion", value: { type: "slow", version: "v1" } },
      });
      const call = client.getCredentialType(slowCall, { signal: caller.signal }).catch((e: unknown) => e);
      await vi.waitFor(() => expect(aborted).toBeDefined());
      caller.abort();
      expect(ConnectError.from(await call).code).toBe(Code.Canceled);
      expect(ConnectError.from(await aborted).code).toBe(Code.Canceled);
      expect((await client.getCredentialType(getPid)).credentialType?.type).toBe("pid");
    } finally {
      await slow.close();
    }
  });

  it("counts every RPC by method and Connect code on /metrics, refused credentials and handler errors too", async () => {
    const client = createRpcClient(schemaV1.SchemaService, {
      baseUrl: server.url,
      audience: "schema-registry",
      signer,
      timeoutMs: 2000,
    });
    const method = "attesto.schema.v1.SchemaService/GetCredentialType";
    const sample = async (code: string) => {
      const text = await (await fetch(`${server.url}/metrics`)).text();
      const line = text
        .split("\n")
        .find((l) => l.startsWith(`rpc_server_requests_total{method="${method}",code="${code}"}`));
      return line ? Number(line.split(" ").at(-1)) : 0;
    };
    const [ok, notFound, unauthenticated] = [
      await sample("ok"),
      await sample("not_found"),
      await sample("unauthenticated"),
    ];
    await client.getCredentialType(getPid);
    await client
      .getCredentialType({ selector: { case: "typeVersion", value: { type: "nope", version: "v1" } } })
      .catch(() => undefined);
    const anonymous = createClient(
      schemaV1.SchemaService,
      createConnectTransport({ baseUrl: server.url, httpVersion: "1.1" }),
    );
    await anonymous.getCredentialType(getPid).catch(() => undefined);
    expect([await sample("ok"), await sample("not_found"), await sample("unauthenticated")]).toEqual([
      ok + 1,
      notFound + 1,
      unauthenticated + 1,
    ]);
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(text).toContain(`rpc_server_duration_seconds_count{method="${method}",code="ok"}`);
  });

  it("serves /health on the internal port", async () => {
    const res = await fetch(`${server.url}/health`);
    expect(await res.json()).toEqual({ status: "ok", service: "schema-registry", version: "9.9.9" });
  });

  it("answers an independent gRPC client (grpc-js) and rejects it without a credential", async () => {
    const protoDir = fileURLToPath(new URL("../../../../proto", import.meta.url));
    const definition = protoLoader.loadSync("attesto/schema/v1/schema.proto", {
      includeDirs: [protoDir],
      keepCase: true,
      defaults: true,
      oneofs: true,
    });
    const loaded = grpc.loadPackageDefinition(definition) as unknown as {
      attesto: { schema: { v1: { SchemaService: grpc.ServiceClientConstructor } } };
    };
    const client = new loaded.attesto.schema.v1.SchemaService(
      server.url.replace("http://", ""),
      grpc.credentials.createInsecure(),
    ) as grpc.Client & Record<string, (...args: unknown[]) => void>;
    const call = (metadata: grpc.Metadata) =>
      new Promise<{ credential_type?: { type: string; description: string } }>((resolve, reject) =>
        client.GetCredentialType!(
          { type_version: { type: "pid", version: "v1" } },
          metadata,
          (error: grpc.ServiceError | null, response: { credential_type?: { type: string; description: string } }) =>
            error ? reject(error) : resolve(response),
        ),
      );
    try {
      const withCredential = new grpc.Metadata();
      withCredential.set("authorization", `Bearer ${await signer.credentialFor("schema-registry")}`);
      const response = await call(withCredential);
      expect(response.credential_type).toMatchObject({ type: "pid", description: "credential-issuer" });
      const error = (await call(new grpc.Metadata()).catch((e: unknown) => e)) as grpc.ServiceError;
      expect(error.code).toBe(grpc.status.UNAUTHENTICATED);
    } finally {
      client.close();
    }
  });

  it("treats a callee that resets its HTTP/2 streams (killed mid-call) as unavailable: retried, then 503", async () => {
    const { createServer, constants } = await import("node:http2");
    let streams = 0;
    const dying = createServer((_request, response) => {
      streams++;
      response.stream.close(constants.NGHTTP2_CANCEL);
    });
    await new Promise<void>((resolve) => dying.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = dying.address() as import("node:net").AddressInfo;
      const client = createRpcClient(schemaV1.SchemaService, {
        baseUrl: `http://127.0.0.1:${port}`,
        audience: "schema-registry",
        signer,
        timeoutMs: 5000,
        retries: 2,
      });
      const error = await client.listCredentialTypes({}).catch((e: unknown) => e);
      expect(ConnectError.from(error).code).toBe(Code.Unavailable);
      expect(fromRpcError(error, "schema registry")).toMatchObject({ status: 503 });
      expect(streams, "the idempotent call was retried").toBe(3);
    } finally {
      dying.close();
    }
  });

  it("maps an unreachable callee to 503", async () => {
    const client = createRpcClient(schemaV1.SchemaService, {
      baseUrl: "http://127.0.0.1:1",
      audience: "schema-registry",
      signer,
      timeoutMs: 1000,
      retries: 0,
    });
    const error = await client.listCredentialTypes({}).catch((e: unknown) => e);
    expect(fromRpcError(error, "schema registry")).toMatchObject({ status: 503 });
  });
});
