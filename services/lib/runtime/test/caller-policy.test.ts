import * as proto from "@attesto/proto";
import {
  allowedCallers,
  CALLER_POLICY,
  createRpcClient,
  type InternalServer,
  SERVICE_IDENTITIES,
  startInternalServer,
} from "@attesto/runtime/rpc";
import type { DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testCredentialSigner, testCredentialVerifier } from "../src/testing.js";

/** Every internal service of the generated code: a new service or method shows up here by itself. */
const SERVICES: DescService[] = Object.values(proto)
  .flatMap((module) => Object.values(module as Record<string, unknown>))
  .filter((value): value is DescService => (value as { kind?: string }).kind === "service");

const METHODS = SERVICES.flatMap((service) =>
  service.methods.map((method) => ({ service, method, name: `${service.typeName}/${method.name}` })),
);

describe("caller policy table", () => {
  it("names every method of every generated service, and nothing else", () => {
    expect(SERVICES.length).toBeGreaterThanOrEqual(9);
    const missing = METHODS.filter(
      ({ service, method }) => CALLER_POLICY[service.typeName]?.[method.name] === undefined,
    );
    expect(missing.map((m) => m.name)).toEqual([]);
    const known = new Set(METHODS.map((m) => m.name));
    const stale = Object.entries(CALLER_POLICY).flatMap(([service, methods]) =>
      Object.keys(methods)
        .map((method) => `${service}/${method}`)
        .filter((name) => !known.has(name)),
    );
    expect(stale).toEqual([]);
  });

  it("refuses a method it does not name to everyone", () => {
    expect(allowedCallers("attesto.tenant.v1.TenantService", "NoSuchMethod")).toEqual([]);
    expect(allowedCallers("attesto.nope.v1.Nope", "Anything")).toEqual([]);
  });
});

describe("caller policy on the internal port", () => {
  // One internal server with every service and no handlers: an allowed call reaches the (missing)
  // handler and answers UNIMPLEMENTED; a refused one never gets that far.
  let server: InternalServer;
  beforeAll(async () => {
    server = await startInternalServer({
      service: "everything",
      version: "test",
      host: "127.0.0.1",
      port: 0,
      routes: (router) => {
        for (const service of SERVICES) router.service(service, {});
      },
      verifier: testCredentialVerifier("everything"),
      logger: pino({ level: "silent" }),
    });
  });
  afterAll(() => server?.close());

  for (const { service, method, name } of METHODS) {
    it(`${name}: only ${allowedCallers(service.typeName, method.name).join(", ") || "nobody"}`, async () => {
      const outcomes: Record<string, string> = {};
      const expected: Record<string, string> = {};
      for (const identity of SERVICE_IDENTITIES) {
        const client = createRpcClient(service, {
          baseUrl: server.url,
          audience: "everything",
          signer: testCredentialSigner(identity),
          timeoutMs: 5_000,
          retries: 0,
        }) as unknown as Record<string, (request: object) => Promise<unknown>>;
        const call = client[method.localName];
        if (!call) throw new Error(`no client method for ${name}`);
        const error = await call({}).catch((e: unknown) => e);
        outcomes[identity] = Code[ConnectError.from(error).code] as string;
        expected[identity] = (allowedCallers(service.typeName, method.name) as readonly string[]).includes(identity)
          ? "Unimplemented"
          : "PermissionDenied";
      }
      expect(outcomes).toEqual(expected);
    });
  }

  it("answers UNAUTHENTICATED, not PERMISSION_DENIED, to a call without a credential", async () => {
    const unknown = createClient(
      proto.tenantV1.TenantService,
      (await import("@connectrpc/connect-node")).createConnectTransport({
        baseUrl: server.url,
        httpVersion: "1.1",
      }),
    );
    const error = await unknown.replaceApiKey({ tenant: "acme" }).catch((e: unknown) => e);
    expect(ConnectError.from(error).code).toBe(Code.Unauthenticated);
  });
});
