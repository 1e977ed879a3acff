import { schemaV1 } from "@attesto/proto";
import { clientInterceptors, serverInterceptors } from "@attesto/runtime/rpc";
import { rpcFailureOf, testCredentialSigner, testCredentialVerifier } from "@attesto/runtime/testing";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { type Client, createClient, createRouterTransport } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schemaRegistry } from "../src/service.js";
import { startTestRegistry, type TestRegistry } from "./test-registry.js";

const { SchemaService } = schemaV1;
const silentLogger = { error() {} } as unknown as Parameters<typeof serverInterceptors>[1];

const libraryCard = {
  type: "library-card",
  version: "v1",
  name: "Library Card",
  description: "Membership of a public library.",
  status: "active",
  use_case: ["library_membership"],
  display: [{ locale: "en-US", name: "Library Card" }],
  claim_display: [{ path: ["member_number"], display: [{ locale: "en-US", label: "Member number" }] }],
  schema: {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: { member_number: { type: "string", minLength: 1 }, branch: { type: "string" } },
    required: ["member_number"],
  },
};

describe("SchemaService.PutCredentialType (attesto types add)", () => {
  let registry: TestRegistry;
  const clientAs = (caller: "operator" | "credential-issuer"): Client<typeof SchemaService> =>
    createClient(
      SchemaService,
      createRouterTransport((router) => schemaRegistry.definition.rpc!(router, registry.context), {
        router: { interceptors: serverInterceptors(testCredentialVerifier("schema-registry"), silentLogger) },
        transport: {
          interceptors: clientInterceptors({ signer: testCredentialSigner(caller), audience: "schema-registry" }),
        },
      }),
    );
  const put = (definition: unknown) =>
    clientAs("operator").putCredentialType({
      definitionJson: typeof definition === "string" ? definition : JSON.stringify(definition),
    });

  beforeAll(async () => {
    registry = await startTestRegistry();
  });
  afterAll(async () => {
    await registry.close();
  });

  it("creates a type, served at once over HTTP and to the issuer", async () => {
    const { outcome, credentialType } = await put(libraryCard);
    expect(outcome).toBe("created");
    expect(credentialType).toMatchObject({
      type: "library-card",
      version: "v1",
      vct: "http://localhost:8086/schemas/library-card/v1",
      status: "active",
    });
    const document = await registry.app.inject({ method: "GET", url: "/schemas/library-card/v1" });
    expect(document.statusCode).toBe(200);
    expect(document.json()).toMatchObject({ name: "Library Card", schema: libraryCard.schema });
    const { credentialType: resolved } = await clientAs("credential-issuer").getCredentialType({
      selector: { case: "vct", value: "http://localhost:8086/schemas/library-card/v1" },
    });
    expect(resolved?.schema).toEqual(libraryCard.schema);
  });

  it("answers unchanged for the same content (whitespace aside), keeping updated_at", async () => {
    const before = (await put(libraryCard)).credentialType!;
    const again = await put(JSON.stringify(libraryCard, null, 2));
    expect(again.outcome).toBe("unchanged");
    expect(timestampDate(again.credentialType!.updatedAt!)).toEqual(timestampDate(before.updatedAt!));
  });

  it("updates the other fields of an existing version (configured)", async () => {
    const { outcome, credentialType } = await put({ ...libraryCard, description: "Membership of a city library." });
    expect(outcome).toBe("updated");
    expect(credentialType?.description).toBe("Membership of a city library.");
  });

  it("refuses a different schema for an existing version, and keeps the stored one", async () => {
    const schema = { ...libraryCard.schema, required: ["member_number", "branch"] };
    expect(await rpcFailureOf(put({ ...libraryCard, schema }))).toEqual({
      code: "AlreadyExists",
      message:
        "credential type 'library-card' version 'v1' already exists with a different schema: the schema of a version cannot change (credentials issued under its vct rely on it); add the new schema as a new version",
    });
    const stored = await registry.app.inject({ method: "GET", url: "/schemas/library-card/v1" });
    expect(stored.json().schema).toEqual(libraryCard.schema);
    expect((await put({ ...libraryCard, version: "v2", schema })).outcome).toBe("created");
  });

  it("lists every problem of an invalid definition, one field per line", async () => {
    const { name: _name, ...withoutName } = libraryCard;
    const failure = await rpcFailureOf(put({ ...withoutName, type: "Library Card", status: "retired", extra: 1 }));
    expect(failure.code).toBe("InvalidArgument");
    expect(failure.message.split("\n")).toEqual([
      "invalid credential type:",
      "  type: must be lowercase letters, digits, '.', '-' or '_'",
      "  name: Invalid input: expected string, received undefined",
      '  status: Invalid option: expected one of "active"|"deprecated"|"draft"',
      '  (root): Unrecognized key: "extra"',
    ]);
    expect(await rpcFailureOf(put("{not json"))).toMatchObject({
      code: "InvalidArgument",
      message: expect.stringMatching(/^the credential type is not valid JSON \(/),
    });
    expect(
      await rpcFailureOf(
        put({ ...libraryCard, claim_display: [{ path: ["nope"], display: libraryCard.claim_display[0]!.display }] }),
      ),
    ).toEqual({
      code: "InvalidArgument",
      message: 'invalid credential type:\n  claim_display: path ["nope"] is not a property of the schema',
    });
  });

  it("is the operator's only", async () => {
    expect(await rpcFailureOf(clientAs("credential-issuer").putCredentialType({ definitionJson: "{}" }))).toMatchObject(
      {
        code: "PermissionDenied",
      },
    );
  });
});
