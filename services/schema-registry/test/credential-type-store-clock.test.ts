import { createTestDatabase, type TestDatabase } from "@attesto/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CredentialTypeDefinition } from "../src/domain/credential-type.js";
import { createCredentialTypeStore } from "../src/store/credential-type.store.js";
import { migrations } from "../src/store/migrations/index.js";

/** A clock far from the database's own (a year ahead), set by each test. */
let current = new Date("2027-11-25T10:00:00.000Z");
const clock = () => current;

const definition = (description: string): CredentialTypeDefinition => ({
  type: "clock-check",
  version: "v1",
  name: "Clock check",
  description,
  status: "active",
  useCase: [],
  display: [],
  claimDisplay: [],
  schema: { type: "object" },
});

describe("credential type store: timestamps come from the injected clock", () => {
  let database: TestDatabase<unknown>;

  beforeAll(async () => {
    database = await createTestDatabase<unknown>({ prefix: "schema_registry_clock", migrations });
  });
  afterAll(() => database?.drop());

  it("stamps created_at and updated_at with the clock; a content change moves only updated_at", async () => {
    const store = createCredentialTypeStore(database.db, clock);
    expect(await store.upsert(definition("first"), "hash-1")).toBe("created");
    const created = await store.find("clock-check", "v1");
    expect(created?.createdAt.toISOString()).toBe("2027-11-25T10:00:00.000Z");
    expect(created?.updatedAt.toISOString()).toBe("2027-11-25T10:00:00.000Z");

    current = new Date("2027-12-01T08:30:00.000Z");
    expect(await store.upsert(definition("first"), "hash-1")).toBe("unchanged");
    expect((await store.find("clock-check", "v1"))?.updatedAt.toISOString()).toBe("2027-11-25T10:00:00.000Z");

    expect(await store.upsert(definition("second"), "hash-2")).toBe("updated");
    const updated = await store.find("clock-check", "v1");
    expect(updated?.createdAt.toISOString()).toBe("2027-11-25T10:00:00.000Z");
    expect(updated?.updatedAt.toISOString()).toBe("2027-12-01T08:30:00.000Z");
  });
});
