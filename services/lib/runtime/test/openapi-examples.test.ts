import { describe, expect, it } from "vitest";
import { exampleOf, hasExample } from "../src/http/openapi-examples.js";

describe("OpenAPI examples made from schemas", () => {
  it("takes the schema's own example first, then constants, defaults and enums", () => {
    expect(exampleOf({ type: "object", examples: [{ a: 1 }] }, "application/json")).toEqual({ a: 1 });
    expect(exampleOf({ const: "code" }, "application/json")).toBe("code");
    expect(exampleOf({ type: "integer", default: 60 }, "application/json")).toBe(60);
    expect(exampleOf({ type: "string", enum: ["DPoP", "Bearer"] }, "application/json")).toBe("DPoP");
  });

  it("fills objects and arrays member by member, within formats, names and bounds", () => {
    const schema = {
      type: "object",
      properties: {
        id: { type: "string", format: "uuid" },
        expires_at: { type: "string" },
        request_uri: { type: "string" },
        count: { type: "integer", minimum: 5, maximum: 9 },
        proofs: { type: "array", minItems: 2, items: { type: "string", minLength: 8 } },
        pair: { type: "array", prefixItems: [{ type: "number" }, { type: "boolean" }], items: false },
        optional: { anyOf: [{ type: "null" }, { type: "boolean" }] },
      },
    };
    expect(exampleOf(schema, "application/json")).toEqual({
      id: "0b7e5c2e-3f1a-4d2b-9c8e-6a5f4e3d2c1b",
      expires_at: "2026-11-29T08:00:00.000Z",
      request_uri: "https://issuer.example/acme",
      count: 5,
      proofs: ["stringxx", "stringxx"],
      pair: [1, true],
      optional: true,
    });
  });

  it("resolves local references and gives bodies that are not JSON a text of their type", () => {
    const document = {
      components: { schemas: { Thing: { type: "object", properties: { ok: { type: "boolean" } } } } },
    };
    expect(exampleOf({ $ref: "#/components/schemas/Thing" }, "application/json", [document])).toEqual({ ok: true });
    expect(exampleOf({ type: "string" }, "text/html")).toMatch(/^<!doctype html>/);
    expect(exampleOf(undefined, "application/statuslist+jwt")).toMatch(/^eyJ/);
  });

  it("knows an example given by the media type or its schema", () => {
    expect(hasExample({ example: 1 })).toBe(true);
    expect(hasExample({ schema: { examples: [1] } })).toBe(true);
    expect(hasExample({ schema: { type: "string" } })).toBe(false);
  });
});
