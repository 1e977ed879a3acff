import { describe, expect, it } from "vitest";
import type { CredentialTypeDefinition } from "../../src/domain/credential-type.js";
import type { UpsertOutcome } from "../../src/domain/credential-type-query.js";
import type { CredentialTypeRepository } from "../../src/domain/ports.js";
import { seedCredentialTypes } from "../../src/domain/seed-credential-types.js";

/** An in-memory repository recording upserts; only what seeding uses is implemented. */
function memoryRepository() {
  const hashes = new Map<string, string>();
  const repository = {
    async upsert(definition: CredentialTypeDefinition, contentHash: string): Promise<UpsertOutcome> {
      const key = `${definition.type}/${definition.version}`;
      const previous = hashes.get(key);
      hashes.set(key, contentHash);
      if (previous === undefined) return "created";
      return previous === contentHash ? "unchanged" : "updated";
    },
  } as CredentialTypeRepository;
  return { repository, hashes };
}

const seed = (type: string, version: string, name = "A type") => ({
  file: `${type}.${version}.json`,
  text: JSON.stringify({
    type,
    version,
    name,
    description: "Test type",
    status: "active",
    use_case: ["testing"],
    display: [{ locale: "en", name }],
    schema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { id: { type: "string" } },
    },
  }),
});

describe("seedCredentialTypes", () => {
  it("creates, then leaves unchanged content alone, then updates changed content", async () => {
    const { repository } = memoryRepository();
    expect(await seedCredentialTypes([seed("a", "v1"), seed("b", "v1")], repository)).toEqual({
      created: 2,
      updated: 0,
      unchanged: 0,
    });
    expect(await seedCredentialTypes([seed("a", "v1"), seed("b", "v1")], repository)).toEqual({
      created: 0,
      updated: 0,
      unchanged: 2,
    });
    expect(await seedCredentialTypes([seed("a", "v1", "Renamed"), seed("b", "v1")], repository)).toEqual({
      created: 0,
      updated: 1,
      unchanged: 1,
    });
  });

  it("writes nothing when any seed is malformed", async () => {
    const { repository, hashes } = memoryRepository();
    const broken = { file: "/seeds/zz-broken.json", text: "{" };
    await expect(seedCredentialTypes([seed("a", "v1"), broken], repository)).rejects.toThrow(
      /Credential type seed \/seeds\/zz-broken\.json is invalid: not valid JSON/,
    );
    expect(hashes.size).toBe(0);
  });

  it("rejects two files defining the same type and version", async () => {
    const { repository } = memoryRepository();
    const copy = { ...seed("a", "v1"), file: "copy-of-a.json" };
    await expect(seedCredentialTypes([seed("a", "v1"), copy], repository)).rejects.toThrow(
      "Credential type seed copy-of-a.json is invalid: type 'a' version 'v1' is also defined in a.v1.json",
    );
  });
});
