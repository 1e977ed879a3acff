import { describe, expect, it } from "vitest";
import { parseCredentialTypeSeed } from "../../src/domain/parse-credential-type-seed.js";
import { SeedError } from "../../src/domain/seed-error.js";

const validSeed = {
  type: "library-card",
  version: "v1",
  name: "Library Card",
  description: "Membership of a public library",
  status: "active",
  use_case: ["library_access"],
  display: [{ locale: "en-US", name: "Library Card", rendering: { simple: { background_color: "#123456" } } }],
  claim_display: [{ path: ["member", "number"], display: [{ locale: "en-US", label: "Member number" }] }],
  schema: {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: {
      member: { type: "object", properties: { number: { type: "string" } }, required: ["number"] },
      valid_until: { type: "string", format: "date" },
    },
    required: ["member"],
  },
};

const parse = (content: unknown, file = "/seeds/library-card.v1.json") =>
  parseCredentialTypeSeed({ file, text: typeof content === "string" ? content : JSON.stringify(content) });

/** The SeedError message of parsing `content`. */
function failureOf(content: unknown, file?: string): string {
  try {
    parse(content, file);
  } catch (error) {
    expect(error).toBeInstanceOf(SeedError);
    return (error as Error).message;
  }
  throw new Error("expected the seed to be rejected");
}

describe("parseCredentialTypeSeed", () => {
  it("turns a valid seed into a camelCase definition", () => {
    expect(parse(validSeed)).toEqual({
      type: "library-card",
      version: "v1",
      name: "Library Card",
      description: "Membership of a public library",
      status: "active",
      useCase: ["library_access"],
      display: validSeed.display,
      claimDisplay: validSeed.claim_display,
      schema: validSeed.schema,
    });
  });

  it("defaults claim labels to none", () => {
    const { claim_display: _, ...withoutLabels } = validSeed;
    expect(parse(withoutLabels).claimDisplay).toEqual([]);
  });

  it("rejects bad JSON, naming the file", () => {
    expect(failureOf('{"type": "library-card",', "/seeds/broken.json")).toMatch(
      /^Credential type seed \/seeds\/broken\.json is invalid: not valid JSON \(/,
    );
  });

  it("rejects a seed with a missing field, naming the file and the field", () => {
    const { name: _, ...withoutName } = validSeed;
    expect(failureOf(withoutName)).toBe(
      "Credential type seed /seeds/library-card.v1.json is invalid: name: Invalid input: expected string, received undefined",
    );
  });

  it("rejects an unknown status", () => {
    expect(failureOf({ ...validSeed, status: "retired" })).toMatch(/is invalid: status: Invalid option/);
  });

  it("rejects a type that cannot be a URL path segment", () => {
    expect(failureOf({ ...validSeed, type: "Library Card" })).toContain(
      "type: must be lowercase letters, digits, '.', '-' or '_'",
    );
  });

  it("rejects unknown top-level fields (typos)", () => {
    expect(failureOf({ ...validSeed, use_cases: ["x"] })).toContain('Unrecognized key: "use_cases"');
  });

  it("requires a JSON Schema 2020-12 object schema", () => {
    const schema = { ...validSeed.schema, $schema: "http://json-schema.org/draft-07/schema#" };
    expect(failureOf({ ...validSeed, schema })).toContain(
      'schema.$schema: must be "https://json-schema.org/draft/2020-12/schema"',
    );
    expect(failureOf({ ...validSeed, schema: { ...validSeed.schema, type: "array" } })).toContain(
      'schema.type: must be "object"',
    );
  });

  it("rejects a schema that Ajv 2020 cannot compile", () => {
    const schema = { ...validSeed.schema, properties: { age: { type: "integer", minimum: "eighteen" } } };
    expect(failureOf({ ...validSeed, schema, claim_display: [] })).toMatch(
      /^Credential type seed \/seeds\/library-card\.v1\.json is invalid: schema: does not compile as JSON Schema 2020-12: .*minimum/,
    );
  });

  it("rejects unknown formats and keywords (strict mode)", () => {
    const unknownFormat = {
      ...validSeed.schema,
      properties: { ...validSeed.schema.properties, born: { type: "string", format: "birthday" } },
    };
    expect(failureOf({ ...validSeed, schema: unknownFormat })).toContain('unknown format "birthday"');
    const unknownKeyword = {
      ...validSeed.schema,
      properties: { ...validSeed.schema.properties, born: { type: "string", mandatory: true } },
    };
    expect(failureOf({ ...validSeed, schema: unknownKeyword })).toContain('unknown keyword: "mandatory"');
  });

  it("rejects `required` naming a property the schema does not declare", () => {
    expect(failureOf({ ...validSeed, schema: { ...validSeed.schema, required: ["member", "nickname"] } })).toContain(
      'required property "nickname" is not defined',
    );
  });

  it("rejects labels for a claim path the schema does not have", () => {
    const claim_display = [{ path: ["number"], display: [{ locale: "en-US", label: "Number" }] }];
    expect(failureOf({ ...validSeed, claim_display })).toBe(
      'Credential type seed /seeds/library-card.v1.json is invalid: claim_display: path ["number"] is not a property of the schema',
    );
  });
});

describe("parseCredentialTypeSeed: mdoc types", () => {
  const mdocSeed = {
    ...validSeed,
    type: "org.example.card.1",
    format: "mso_mdoc",
    doctype: "org.example.card.1",
    claim_display: [{ path: ["org.example.card.1", "number"], display: [{ locale: "en-US", label: "Number" }] }],
    schema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        "org.example.card.1": {
          type: "object",
          properties: { number: { type: "string" }, photo: { type: "string", contentEncoding: "base64url" } },
          required: ["number"],
        },
      },
    },
  };

  it("keeps the format and doctype of an mdoc type", () => {
    expect(parse(mdocSeed)).toMatchObject({ format: "mso_mdoc", doctype: "org.example.card.1" });
    expect(parse({ ...mdocSeed, type: "Org.Example.Card.1", doctype: "Org.Example.Card.1" }).type).toBe(
      "Org.Example.Card.1",
    );
  });

  it("leaves SD-JWT VC types without a format (their content hash is unchanged)", () => {
    expect(parse(validSeed)).not.toHaveProperty("format");
    expect(parse({ ...validSeed, format: "dc+sd-jwt" })).not.toHaveProperty("format");
  });

  it("names every problem of an mdoc definition", () => {
    const { doctype: _, ...withoutDoctype } = mdocSeed;
    expect(failureOf(withoutDoctype)).toContain('doctype: is required with format "mso_mdoc"');
    expect(failureOf({ ...validSeed, doctype: "org.example.card.1" })).toContain(
      'doctype: is only allowed with format "mso_mdoc"',
    );
    expect(failureOf({ ...validSeed, type: "Library-Card" })).toContain("type: must be lowercase letters");
    const flat = {
      ...mdocSeed,
      claim_display: [],
      schema: { ...mdocSeed.schema, properties: { "org.example.card.1": { type: "string" } } },
    };
    expect(failureOf(flat)).toContain("schema.properties.org.example.card.1: must be an object schema");
  });
});
