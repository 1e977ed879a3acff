import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { embeddedTemplateDir, startEmbeddedPostgres } from "../src/index.js";

const root = mkdtempSync(join(tmpdir(), "attesto-embedded-template-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function query(url: string, text: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

describe("embedded database template cluster", () => {
  it("lies in node_modules/.cache/attesto, per PGlite version", () => {
    expect(embeddedTemplateDir()).toMatch(/node_modules[/\\]\.cache[/\\]attesto[/\\]pglite-\d+\.\d+\.\d+-template$/);
  });

  it("makes the template once, and new data folders start from a copy of it, each its own cluster", async () => {
    const templateDir = join(root, "template");
    const first = await startEmbeddedPostgres({ dataDir: join(root, "a"), templateDir });
    try {
      expect(existsSync(join(templateDir, "PG_VERSION"))).toBe(true);
      await query(first.url, "CREATE TABLE only_in_a (id int); INSERT INTO only_in_a VALUES (1)");
    } finally {
      await first.close();
    }
    const second = await startEmbeddedPostgres({ dataDir: join(root, "b"), templateDir });
    try {
      expect(await query(second.url, "SELECT to_regclass('only_in_a') AS t")).toEqual([{ t: null }]);
      expect(await query(second.url, "SHOW shared_buffers")).toEqual([{ shared_buffers: "32MB" }]);
    } finally {
      await second.close();
    }
    // An existing data folder keeps its data (the template is only for empty ones).
    const again = await startEmbeddedPostgres({ dataDir: join(root, "a"), templateDir });
    try {
      expect(await query(again.url, "SELECT id FROM only_in_a")).toEqual([{ id: 1 }]);
    } finally {
      await again.close();
    }
  }, 120_000);

  it("falls back to initdb in the data folder when the template cannot be made", async () => {
    const blocked = join(root, "file-not-folder");
    writeFileSync(blocked, "");
    const db = await startEmbeddedPostgres({ dataDir: join(root, "c"), templateDir: join(blocked, "template") });
    try {
      expect(await query(db.url, "SELECT 1 AS one")).toEqual([{ one: 1 }]);
    } finally {
      await db.close();
    }
  }, 120_000);
});
