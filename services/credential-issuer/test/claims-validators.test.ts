import { describe, expect, it } from "vitest";
import { createClaimsValidators } from "../src/domain/claims-validators.js";

const schema = (required: string[]) => ({
  type: "object",
  properties: { name: { type: "string" }, age: { type: "integer" } },
  required,
});

describe("claims validators", () => {
  it("check claims against the type's schema, every failing claim at once", () => {
    const validators = createClaimsValidators();
    expect(validators.checkAll("urn:t", schema(["name"]), { name: "Ada" })).toEqual([]);
    const errors = validators.checkAll("urn:t", schema(["name"]), { age: "x" });
    expect(errors.map((error) => error.field).sort()).toEqual(["credential.claims.age", "credential.claims.name"]);
  });

  it("follow a changed schema of the same type (a new schema object, or an equal one)", () => {
    const validators = createClaimsValidators();
    const first = schema(["name"]);
    expect(validators.checkAll("urn:t", first, { age: 1 })).not.toEqual([]);
    expect(validators.checkAll("urn:t", schema(["age"]), { age: 1 })).toEqual([]);
    expect(validators.checkAll("urn:t", first, { age: 1 })).not.toEqual([]);
    expect(validators.checkAll("urn:t", schema(["name"]), { name: "Ada" })).toEqual([]);
  });
});
