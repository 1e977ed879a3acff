import { schemaV1 } from "@attesto/proto";
import { clientInterceptors, serverInterceptors } from "@attesto/runtime/rpc";
import { rpcFailureOf, testCredentialSigner, testCredentialVerifier } from "@attesto/runtime/testing";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { type Client, createClient, createRouterTransport } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schemaRegistry } from "../src/service.js";
import { EXTRA_SEEDS_DIR, startTestRegistry, type TestRegistry } from "./test-registry.js";

const { SchemaService } = schemaV1;
const silentLogger = { error() {} } as unknown as Parameters<typeof serverInterceptors>[1];

describe("SchemaService (internal RPC, in memory)", () => {
  let registry: TestRegistry;
  let client: Client<typeof SchemaService>;
  /** ListCredentialTypes is the trust registry's (caller policy); GetCredentialType the issuer's. */
  let catalog: Client<typeof SchemaService>;

  /** The service as the internal port serves it: credential check and error mapping included. */
  const transportFor = (
    interceptors = clientInterceptors({
      signer: testCredentialSigner("credential-issuer"),
      audience: "schema-registry",
    }),
  ) =>
    createRouterTransport((router) => schemaRegistry.definition.rpc!(router, registry.context), {
      router: {
        interceptors: serverInterceptors(testCredentialVerifier("schema-registry"), silentLogger),
      },
      transport: { interceptors },
    });

  beforeAll(async () => {
    registry = await startTestRegistry();
    await registry.seed(EXTRA_SEEDS_DIR);
    client = createClient(SchemaService, transportFor());
    catalog = createClient(
      SchemaService,
      transportFor(clientInterceptors({ signer: testCredentialSigner("trust-registry"), audience: "schema-registry" })),
    );
  });
  afterAll(async () => {
    await registry.close();
  });

  const documentOf = async (type: string, version: string) =>
    (await registry.app.inject({ method: "GET", url: `/schemas/${type}/${version}` })).json() as {
      updated_at: string;
      claims: Array<{ path: string[]; mandatory: boolean }>;
      schema: unknown;
    };

  it("gets a credential type by type and version, carrying the HTTP metadata document", async () => {
    const { credentialType } = await client.getCredentialType({
      selector: { case: "typeVersion", value: { type: "university-diploma", version: "v1" } },
    });
    const document = await documentOf("university-diploma", "v1");
    expect(credentialType).toMatchObject({
      type: "university-diploma",
      version: "v1",
      vct: "http://localhost:8086/schemas/university-diploma/v1",
      name: "University Diploma",
      description:
        "Higher-education qualification awarded by an accredited institution, with degree, field of study and EQF level.",
      status: "active",
      useCase: ["education_verification", "employment_screening", "further_studies_admission"],
    });
    expect(credentialType?.schema).toEqual(document.schema);
    expect(credentialType?.metadata).toEqual(document);
    expect(credentialType?.claims.map(({ path, mandatory }) => ({ path, mandatory }))).toEqual(
      document.claims.map(({ path, mandatory }) => ({ path, mandatory })),
    );
    expect(credentialType?.claims.slice(0, 2).map(({ path, mandatory }) => ({ path, mandatory }))).toEqual([
      { path: ["given_name"], mandatory: true },
      { path: ["family_name"], mandatory: true },
    ]);
    expect(timestampDate(credentialType!.updatedAt!).toISOString()).toBe(document.updated_at);
    expect(timestampDate(credentialType!.createdAt!).getTime()).toBeLessThanOrEqual(Date.parse(document.updated_at));
  });

  it("gets a credential type by its vct URL", async () => {
    const { credentialType } = await client.getCredentialType({
      selector: { case: "vct", value: "http://localhost:8086/schemas/person-identification-data/v1" },
    });
    expect(credentialType).toMatchObject({
      type: "person-identification-data",
      version: "v1",
      vct: "http://localhost:8086/schemas/person-identification-data/v1",
    });
    expect(credentialType?.metadata).toEqual(await documentOf("person-identification-data", "v1"));
  });

  it("answers NotFound for an unknown type, version or vct", async () => {
    expect(
      await rpcFailureOf(
        client.getCredentialType({ selector: { case: "typeVersion", value: { type: "no-such-type", version: "v1" } } }),
      ),
    ).toEqual({ code: "NotFound", message: "Credential type not found" });
    expect(
      await rpcFailureOf(
        client.getCredentialType({
          selector: { case: "typeVersion", value: { type: "university-diploma", version: "v9" } },
        }),
      ),
    ).toEqual({ code: "NotFound", message: "Credential type version not found" });
    expect(
      await rpcFailureOf(
        client.getCredentialType({ selector: { case: "vct", value: "http://localhost:8086/schemas/no-such-type/v1" } }),
      ),
    ).toEqual({ code: "NotFound", message: "Credential type not found" });
    expect(
      await rpcFailureOf(
        client.getCredentialType({
          selector: { case: "vct", value: "https://other.example/schemas/university-diploma/v1" },
        }),
      ),
    ).toEqual({
      code: "NotFound",
      message: "the vct is not a credential type of this registry",
    });
  });

  it("answers InvalidArgument without a selector or with half a type_version", async () => {
    expect(await rpcFailureOf(client.getCredentialType({}))).toEqual({
      code: "InvalidArgument",
      message: "selector is required: type_version or vct",
    });
    expect(
      await rpcFailureOf(
        client.getCredentialType({ selector: { case: "typeVersion", value: { type: "university-diploma" } } }),
      ),
    ).toEqual({ code: "InvalidArgument", message: "type_version needs both type and version" });
  });

  it("carries an mdoc type's format and doctype; SD-JWT VC types say dc+sd-jwt", async () => {
    const { credentialType: mdl } = await client.getCredentialType({
      selector: { case: "typeVersion", value: { type: "org.iso.18013.5.1.mDL", version: "v1" } },
    });
    expect({ format: mdl?.format, doctype: mdl?.doctype }).toEqual({
      format: "mso_mdoc",
      doctype: "org.iso.18013.5.1.mDL",
    });
    expect(mdl?.claims.every((claim) => claim.path.length === 2 && claim.path[0] === "org.iso.18013.5.1")).toBe(true);
    const { credentialType: diploma } = await client.getCredentialType({
      selector: { case: "typeVersion", value: { type: "university-diploma", version: "v1" } },
    });
    expect({ format: diploma?.format, doctype: diploma?.doctype }).toEqual({ format: "dc+sd-jwt", doctype: "" });
  });

  it("lists credential types, optionally by status", async () => {
    const all = await catalog.listCredentialTypes({});
    expect(all.credentialTypes.map((t) => `${t.type}/${t.version}:${t.status}`)).toEqual([
      "driving-licence/v1:active",
      "employee-badge/v1:active",
      "eu.europa.ec.eudi.pid.1/v1:active",
      "loyalty-card/v1:draft",
      "org.iso.18013.5.1.mDL/v1:active",
      "person-identification-data/v1:active",
      "university-diploma/v0:deprecated",
      "university-diploma/v1:active",
    ]);
    const active = await catalog.listCredentialTypes({ status: "active" });
    expect(active.credentialTypes.map((t) => t.vct)).toEqual([
      "http://localhost:8086/schemas/driving-licence/v1",
      "http://localhost:8086/schemas/employee-badge/v1",
      "http://localhost:8086/schemas/eu.europa.ec.eudi.pid.1/v1",
      "http://localhost:8086/schemas/org.iso.18013.5.1.mDL/v1",
      "http://localhost:8086/schemas/person-identification-data/v1",
      "http://localhost:8086/schemas/university-diploma/v1",
    ]);
    expect(active.credentialTypes[0]?.metadata).toEqual(await documentOf("driving-licence", "v1"));
    const deprecated = await catalog.listCredentialTypes({ status: "deprecated" });
    expect(deprecated.credentialTypes.map((t) => t.vct)).toEqual([
      "http://localhost:8086/schemas/university-diploma/v0",
    ]);
  });

  it("lists for the operator too (`attesto types list`), with each type's format and an mdoc's doctype", async () => {
    const operator = createClient(
      SchemaService,
      transportFor(clientInterceptors({ signer: testCredentialSigner("operator"), audience: "schema-registry" })),
    );
    const { credentialTypes } = await operator.listCredentialTypes({ status: "active" });
    const mdocs = credentialTypes.filter((t) => t.format === "mso_mdoc").map((t) => [t.type, t.doctype]);
    expect(mdocs).toEqual([
      ["eu.europa.ec.eudi.pid.1", "eu.europa.ec.eudi.pid.1"],
      ["org.iso.18013.5.1.mDL", "org.iso.18013.5.1.mDL"],
    ]);
    expect(credentialTypes.find((t) => t.type === "university-diploma")).toMatchObject({ format: "dc+sd-jwt" });
    // Other services still may not list (the caller policy names the trust registry and the operator).
    expect((await rpcFailureOf(client.listCredentialTypes({}))).code).toBe("PermissionDenied");
  });

  it("answers InvalidArgument for an unknown status filter", async () => {
    expect(await rpcFailureOf(catalog.listCredentialTypes({ status: "retired" }))).toEqual({
      code: "InvalidArgument",
      message: "status must be one of active, deprecated, draft",
    });
  });

  it("refuses callers without a service credential", async () => {
    const anonymous = createClient(SchemaService, transportFor([]));
    expect(await rpcFailureOf(anonymous.listCredentialTypes({}))).toEqual({
      code: "Unauthenticated",
      message: "service credential required",
    });
  });
});
