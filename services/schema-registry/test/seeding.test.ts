import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { builtInSeedsDir } from "../src/config.js";
import { startTestRegistry, type TestRegistry } from "./test-registry.js";

/** Every stored type as the list endpoint and the metadata documents show it. */
async function snapshot(registry: TestRegistry) {
  const list = await registry.app.inject({ method: "GET", url: "/schemas?sort_by=created_at&limit=100" });
  const { data } = list.json() as { data: Array<{ type: string; version: string }> };
  const documents = await Promise.all(
    data.map(async (item) =>
      (await registry.app.inject({ method: "GET", url: `/schemas/${item.type}/${item.version}` })).json(),
    ),
  );
  return { list: list.json() as unknown, documents };
}

describe("seeding at start-up", () => {
  let registry: TestRegistry;
  const temporaryDirs: string[] = [];

  /** A copy of the built-in seeds that a test may edit. */
  const copyOfSeeds = () => {
    const dir = mkdtempSync(join(tmpdir(), "schema-seeds-"));
    temporaryDirs.push(dir);
    cpSync(builtInSeedsDir, dir, { recursive: true });
    return dir;
  };

  beforeAll(async () => {
    registry = await startTestRegistry();
  });
  afterEach(() => {
    for (const dir of temporaryDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  afterAll(async () => {
    await registry.close();
  });

  it("is idempotent: seeding again keeps every row, timestamp and document", async () => {
    const before = await snapshot(registry);
    expect(before.list).toMatchObject({ meta: { total: 6 } });
    await registry.seed();
    await registry.seed();
    expect(await snapshot(registry)).toEqual(before);
  });

  it("updates a type, and only its updated_at, when its seed content changes", async () => {
    const before = await snapshot(registry);
    const dir = copyOfSeeds();
    const file = join(dir, "employee-badge.v1.json");
    const seed = JSON.parse(readFileSync(file, "utf8")) as { description: string };
    writeFileSync(file, JSON.stringify({ ...seed, description: "Proof of current employment (revised)." }));
    // Whitespace and the order of top-level fields are not content: a reformatted seed is unchanged.
    const diplomaFile = join(dir, "university-diploma.v1.json");
    const diploma = JSON.parse(readFileSync(diplomaFile, "utf8")) as Record<string, unknown>;
    const reordered = Object.fromEntries(Object.entries(diploma).reverse());
    writeFileSync(diplomaFile, JSON.stringify(reordered, null, 8));

    await registry.seed(dir);

    const after = await snapshot(registry);
    const badgeBefore = before.documents.find((d) => (d as { vct: string }).vct.includes("employee-badge")) as {
      updated_at: string;
    };
    const badgeAfter = after.documents.find((d) => (d as { vct: string }).vct.includes("employee-badge")) as {
      updated_at: string;
      description: string;
    };
    expect(badgeAfter.description).toBe("Proof of current employment (revised).");
    expect(Date.parse(badgeAfter.updated_at)).toBeGreaterThan(Date.parse(badgeBefore.updated_at));
    expect(badgeAfter).toEqual({
      ...badgeBefore,
      description: badgeAfter.description,
      updated_at: badgeAfter.updated_at,
    });
    const others = (documents: unknown[]) =>
      documents.filter((d) => !(d as { vct: string }).vct.includes("employee-badge"));
    expect(others(after.documents)).toEqual(others(before.documents));
    expect((after.list as { meta: unknown }).meta).toEqual({ offset: 0, limit: 100, total: 6 });
  });

  it("treats a new property order as new content: it is the order of the claims", async () => {
    const dir = copyOfSeeds();
    const file = join(dir, "university-diploma.v1.json");
    const seed = JSON.parse(readFileSync(file, "utf8")) as { schema: { properties: Record<string, unknown> } };
    seed.schema.properties = Object.fromEntries(Object.entries(seed.schema.properties).reverse());
    writeFileSync(file, JSON.stringify(seed));

    await registry.seed(dir);

    const response = await registry.app.inject({ method: "GET", url: "/schemas/university-diploma/v1" });
    const { claims } = response.json() as { claims: Array<{ path: string[] }> };
    expect(claims.map((claim) => claim.path.join("."))).toEqual([
      "courses",
      "thesis_title",
      "honours",
      "grade",
      "awarded_on",
      "institution",
      "institution.name",
      "institution.country",
      "institution.identifier",
      "institution.website",
      "degree",
      "degree.type",
      "degree.name",
      "degree.field_of_study",
      "degree.eqf_level",
      "degree.ects_credits",
      "student_identifier",
      "birth_date",
      "family_name",
      "given_name",
    ]);
  });

  it("fails on a malformed seed with a message naming the file, and writes nothing", async () => {
    const before = await snapshot(registry);
    const dir = copyOfSeeds();
    writeFileSync(join(dir, "a-new-type.v1.json"), JSON.stringify({ type: "a-new-type", version: "v1" }));
    const file = join(dir, "employee-badge.v1.json");
    writeFileSync(file, readFileSync(file, "utf8").replace('"description"', '"summary"'));

    await expect(registry.seed(dir)).rejects.toThrow(
      `Credential type seed ${join(dir, "a-new-type.v1.json")} is invalid:`,
    );
    expect(await snapshot(registry)).toEqual(before);
  });

  it("fails on a seed that is not JSON", async () => {
    const dir = copyOfSeeds();
    writeFileSync(join(dir, "broken.json"), "{ not json");
    await expect(registry.seed(dir)).rejects.toThrow(
      new RegExp(`^Credential type seed ${join(dir, "broken.json")} is invalid: not valid JSON`),
    );
  });

  it("fails on a seed whose JSON Schema does not compile", async () => {
    const dir = copyOfSeeds();
    const file = join(dir, "driving-licence.v1.json");
    writeFileSync(file, readFileSync(file, "utf8").replace('"format": "date"', '"format": "calendar-day"'));
    await expect(registry.seed(dir)).rejects.toThrow(
      `Credential type seed ${file} is invalid: schema: does not compile as JSON Schema 2020-12: unknown format "calendar-day"`,
    );
  });

  it("fails when the seeds directory does not exist", async () => {
    await expect(registry.seed("/nonexistent/seeds")).rejects.toThrow(
      "Cannot read the credential type seeds directory /nonexistent/seeds: ENOENT",
    );
  });
});
