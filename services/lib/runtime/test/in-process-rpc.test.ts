import { schemaV1 } from "@attesto/proto";
import {
  callerKey,
  createRpcClient,
  enableInProcessRpc,
  type InternalServer,
  startInternalServer,
} from "@attesto/runtime/rpc";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import pino from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { testCredentialSigner, testCredentialVerifier } from "../src/testing.js";

/**
 * In-process internal calls (the all-in-one): a client whose callee's internal server runs in the
 * same process calls it through Connect's router transport, with the same server-side checks
 * (service credential, caller policy) and deadline as over h2c; off by default.
 */

const logger = pino({ level: "silent" });

/** The handlers' signals, newest last. */
const handlerSignals: AbortSignal[] = [];

/** Answers who called and over which URL the call arrived (in memory: https://in-memory/...). */
function schemaRoutes(router: ConnectRouter) {
  router.service(schemaV1.SchemaService, {
    getCredentialType(_req, context) {
      handlerSignals.push(context.signal);
      return {
        credentialType: { type: context.url, version: "v1", description: context.values.get(callerKey) },
      };
    },
    async listCredentialTypes(_req, context) {
      // Slow work: it ends only when the call's signal is aborted (at the caller's deadline).
      await new Promise((resolve) => context.signal.addEventListener("abort", resolve, { once: true }));
      context.signal.throwIfAborted();
      return { credentialTypes: [] };
    },
  });
}

const getAny = create(schemaV1.GetCredentialTypeRequestSchema, {
  selector: { case: "typeVersion", value: { type: "pid", version: "v1" } },
});

describe("in-process internal RPC", () => {
  let server: InternalServer;
  const clientOf = (caller: Parameters<typeof testCredentialSigner>[0], baseUrl = server.url, timeoutMs = 5_000) =>
    createRpcClient(schemaV1.SchemaService, {
      baseUrl,
      audience: "schema-registry",
      signer: testCredentialSigner(caller),
      timeoutMs,
      retries: 0,
    });

  beforeAll(async () => {
    server = await startInternalServer({
      service: "schema-registry",
      version: "test",
      host: "127.0.0.1",
      port: 0,
      routes: schemaRoutes,
      verifier: testCredentialVerifier("schema-registry"),
      logger,
    });
  });
  afterEach(() => enableInProcessRpc(false));
  afterAll(() => server.close());

  it("goes over the network unless turned on", async () => {
    const res = await clientOf("credential-issuer").getCredentialType(getAny);
    expect(res.credentialType?.type).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    expect(res.credentialType?.description).toBe("credential-issuer");
  });

  it("calls the server in this process in memory when on, as any loopback name", async () => {
    enableInProcessRpc();
    const port = new URL(server.url).port;
    for (const baseUrl of [server.url, `http://localhost:${port}`]) {
      const res = await clientOf("credential-issuer", baseUrl).getCredentialType(getAny);
      expect(res.credentialType?.type).toMatch(/^https:\/\/in-memory\//);
      expect(res.credentialType?.description).toBe("credential-issuer");
    }
  });

  it("ends each call's signal with one shared AbortError instead of building one (with its stack) per call", async () => {
    enableInProcessRpc();
    const client = clientOf("credential-issuer");
    await client.getCredentialType(getAny);
    await client.getCredentialType(getAny);
    const [first, second] = handlerSignals.slice(-2);
    expect(first?.aborted && second?.aborted).toBe(true);
    expect((first?.reason as Error | undefined)?.name).toBe("AbortError");
    expect(first?.reason).toBe(second?.reason);
  });

  it("calls routes registered with handler options in memory too (through Connect's router)", async () => {
    const withOptions = await startInternalServer({
      service: "schema-registry",
      version: "test",
      host: "127.0.0.1",
      port: 0,
      routes: (router) =>
        router.service(
          schemaV1.SchemaService,
          { getCredentialType: (_req, context) => ({ credentialType: { type: context.url } }) },
          { readMaxBytes: 1_000_000 },
        ),
      verifier: testCredentialVerifier("schema-registry"),
      logger,
    });
    try {
      enableInProcessRpc();
      const res = await clientOf("credential-issuer", withOptions.url).getCredentialType(getAny);
      expect(res.credentialType?.type).toMatch(/^https:\/\/in-memory\//);
    } finally {
      await withOptions.close();
    }
  });

  it("keeps the server's checks: the caller policy refuses a caller not in the table", async () => {
    enableInProcessRpc();
    const error = await clientOf("holder")
      .getCredentialType(getAny)
      .catch((e: unknown) => e);
    expect(ConnectError.from(error).code).toBe(Code.PermissionDenied);
  });

  it("keeps the server's checks: a credential for another audience is refused", async () => {
    enableInProcessRpc();
    const client = createRpcClient(schemaV1.SchemaService, {
      baseUrl: server.url,
      audience: "verifier",
      signer: testCredentialSigner("credential-issuer"),
      timeoutMs: 5_000,
      retries: 0,
    });
    const error = await client.getCredentialType(getAny).catch((e: unknown) => e);
    expect(ConnectError.from(error).code).toBe(Code.Unauthenticated);
  });

  it("keeps the deadline", async () => {
    enableInProcessRpc();
    const error = await clientOf("trust-registry", server.url, 100)
      .listCredentialTypes({})
      .catch((e: unknown) => e);
    expect(ConnectError.from(error).code).toBe(Code.DeadlineExceeded);
  });

  it("never takes a server of this process for another host's", async () => {
    enableInProcessRpc();
    const port = new URL(server.url).port;
    // 192.0.2.1 (TEST-NET-1) is not this process: the call must try the network and fail there.
    const error = await clientOf("credential-issuer", `http://192.0.2.1:${port}`, 300)
      .getCredentialType(getAny)
      .catch((e: unknown) => e);
    expect([Code.DeadlineExceeded, Code.Unavailable]).toContain(ConnectError.from(error).code);
  });
});

describe("in-process internal RPC after the server closed", () => {
  it("goes to the network, which answers Unavailable", async () => {
    const closed = await startInternalServer({
      service: "schema-registry",
      version: "test",
      host: "127.0.0.1",
      port: 0,
      routes: schemaRoutes,
      verifier: testCredentialVerifier("schema-registry"),
      logger,
    });
    await closed.close();
    enableInProcessRpc();
    try {
      const error = await createRpcClient(schemaV1.SchemaService, {
        baseUrl: closed.url,
        audience: "schema-registry",
        signer: testCredentialSigner("credential-issuer"),
        timeoutMs: 2_000,
        retries: 0,
      })
        .getCredentialType(getAny)
        .catch((e: unknown) => e);
      expect(ConnectError.from(error).code).toBe(Code.Unavailable);
    } finally {
      enableInProcessRpc(false);
    }
  });
});
